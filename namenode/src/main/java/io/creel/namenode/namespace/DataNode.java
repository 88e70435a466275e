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
     * How this node's bytes map to its blocks, in a cluster of {@code blockSize}-byte blocks: the one
     * place the namenode asks it. Every node's layout is uniform today.
     */
    BlockLayout layout(long blockSize) {
        return BlockLayout.uniform(blockSize);
    }

    /** The lease's value, or 0 when none is held. */
    long leaseValue() {
        return lease == null ? 0 : lease.value();
    }
}
