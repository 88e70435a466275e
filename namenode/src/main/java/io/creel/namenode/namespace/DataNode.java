package io.creel.namenode.namespace;

import io.creel.common.namespace.BlockLayout;
import io.creel.common.namespace.NodeType;

/**
 * A File or a KeyValue version: a committed length, its bytes either in blocks or — up to the
 * namespace's inline limit — held right here ({@link #inline}), and the write lease while a writer
 * has it.
 */
final class DataNode extends Node {
    long length;
    /**
     * The committed bytes when the node keeps them inline (then {@code inline.length == length} and
     * no block holds data); {@code null} when they are in blocks. An array is never changed once
     * set, so replies may read it outside the lock.
     */
    byte[] inline;
    /** The writer's lease, or {@code null}. */
    Lease lease;

    DataNode(long id, NodeType type, byte[] name, Container parent, Placement placement, long now, State state) {
        super(id, type, name, parent, placement, now, state);
    }

    @Override
    long visibleLength() {
        return length;
    }

    @Override
    boolean enumerable() {
        return true;
    }

    @Override
    boolean leased() {
        return lease != null;
    }

    /**
     * How this node's bytes map to its blocks, in a cluster of {@code blockSize}-byte blocks: block 0
     * is as long as the block its server has (a size class's, or a whole one), every later block is
     * whole. Block 0 is allocated first and, when it moves, moves to a block of its size, so a node's
     * layout never changes while it has blocks; it is known again after a restart from the server
     * description the log keeps with the block.
     */
    BlockLayout layout(long blockSize) {
        int first = firstBlockSize();
        return first == 0 || first >= blockSize ? BlockLayout.uniform(blockSize) : new BlockLayout(first, blockSize);
    }

    /** The lease's value, or 0 when none is held. */
    long leaseValue() {
        return lease == null ? 0 : lease.value();
    }
}
