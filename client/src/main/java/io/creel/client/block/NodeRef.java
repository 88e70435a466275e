package io.creel.client.block;

/**
 * A node as the data plane needs it: which partition's namenode maps its blocks, its id there, its
 * path (how errors name it), and the size of its block 0 as the namenode last described the node
 * ({@code NodeInfo.firstBlockSize}: 0 when it had none, less than a block for a size class's).
 */
public record NodeRef(int partition, long nodeId, String path, int firstBlockSize) {
    /** A node whose blocks are all whole (or that has none yet). */
    public NodeRef(int partition, long nodeId, String path) {
        this(partition, nodeId, path, 0);
    }

    public BlockKey block(long index) {
        return new BlockKey(partition, nodeId, index);
    }
}
