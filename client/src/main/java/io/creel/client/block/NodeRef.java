package io.creel.client.block;

/** A node as the data plane needs it: which partition's namenode maps its blocks, and its id there. */
public record NodeRef(int partition, long nodeId) {
    public BlockKey block(long index) {
        return new BlockKey(partition, nodeId, index);
    }
}
