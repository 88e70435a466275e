package io.creel.client.block;

/**
 * Names one block of one node: node ids are unique only within a namenode partition, so the
 * partition is part of the name.
 */
public record BlockKey(int partition, long nodeId, long blockIndex) {
}
