package io.creel.client.block;

/**
 * A node as the data plane needs it: which partition's namenode maps its blocks, its id there, and
 * its path (how errors name it).
 */
public record NodeRef(int partition, long nodeId, String path) {
    public BlockKey block(long index) {
        return new BlockKey(partition, nodeId, index);
    }
}
