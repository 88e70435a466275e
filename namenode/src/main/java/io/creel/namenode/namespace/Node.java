package io.creel.namenode.namespace;

import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import io.creel.namenode.allocation.AllocatedBlock;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * One node of the namespace; guarded by the {@link Namespace} lock. Nodes are what a namenode holds
 * millions of, so they stay small: the name is its UTF-8 bytes, blocks are a bare array, and what
 * only containers or only data nodes need lives in {@link Container} and {@link DataNode}, created
 * lazily where it can be.
 */
abstract sealed class Node permits Container, DataNode {
    enum State {
        /** Reachable by path. */
        LIVE,
        /** A KeyValue version not yet committed: reachable only by id, by its writer. */
        PENDING,
        /** Removed or replaced: resolvable by id until the reuse delay ends. */
        RETIRED
    }

    private static final AllocatedBlock[] NO_BLOCKS = new AllocatedBlock[0];

    final long id;
    final NodeType type;
    State state;
    /** The container; for a pending KeyValue version, the Table it will be committed into. */
    Container parent;
    /** The name, UTF-8; never changed in place (a move sets a new array). */
    byte[] name;
    /** {@link ChildTable#hash} of {@link #name}. */
    int nameHash;
    /** Set at creation; a restart's rebuild completes it (see {@link NamespaceImage.Rebuilder#replication}). */
    Placement placement;
    long modifiedMillis;
    /** Owner, group and mode as {@link Ownership} packs them; 0 when never stamped. */
    long access;
    /** This node's slot in its parent's records, or -1. */
    int slot = -1;
    private AllocatedBlock[] blocks = NO_BLOCKS;
    private int blockCount;

    Node(long id, NodeType type, byte[] name, Container parent, Placement placement, long now, State state) {
        this.id = id;
        this.type = type;
        this.parent = parent;
        this.placement = placement;
        this.modifiedMillis = now;
        this.state = state;
        rename(name);
    }

    /** Gives the node a new name. */
    final void rename(byte[] newName) {
        this.name = newName;
        this.nameHash = ChildTable.hash(newName, 0, newName.length);
    }

    /** Bytes readable by clients: a committed length, or a container's record array written so far. */
    abstract long visibleLength();

    /** Whether the node's children are listed (only a Table may be non-enumerable). */
    abstract boolean enumerable();

    /** Whether a writer holds the node's lease. */
    abstract boolean leased();

    final NodeInfo info() {
        return new NodeInfo(id, type, visibleLength(), placement.storageClass(), placement.locationClass(),
                enumerable(), modifiedMillis, leased(), replicationSet(), null, firstBlockSize());
    }

    /** Bytes of block 0, which may be a block of a size class (0 when there is none). */
    final int firstBlockSize() {
        return blockCount() == 0 ? 0 : block(0).server().blockSize();
    }

    /** The factor set on this node or its nearest ancestor that sets one, or 0. */
    private int replicationSet() {
        for (Node x = this; x != null; x = x.parent) {
            if (x.placement.replication() > 0) {
                return x.placement.replication();
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------ blocks

    final int blockCount() {
        return blockCount;
    }

    final AllocatedBlock block(int index) {
        if (index >= blockCount) {
            throw new IndexOutOfBoundsException("block " + index + " of " + blockCount);
        }
        return blocks[index];
    }

    /** Adds a block after the last. */
    final void addBlock(AllocatedBlock b) {
        if (blockCount == blocks.length) {
            blocks = Arrays.copyOf(blocks, blockCount == 0 ? 1 : blockCount * 2);
        }
        blocks[blockCount++] = b;
    }

    /** Replaces block {@code index} (which exists). */
    final void setBlock(int index, AllocatedBlock b) {
        block(index);
        blocks[index] = b;
    }

    /** Keeps only the first {@code keep} blocks; returns the ones dropped. */
    final List<AllocatedBlock> truncateBlocks(int keep) {
        if (keep >= blockCount) {
            return List.of();
        }
        List<AllocatedBlock> dropped = List.copyOf(Arrays.asList(blocks).subList(keep, blockCount));
        Arrays.fill(blocks, keep, blockCount, null);
        blockCount = keep;
        if (keep == 0) {
            blocks = NO_BLOCKS;
        }
        return dropped;
    }

    /** The blocks, as an unmodifiable copy. */
    final List<AllocatedBlock> blocks() {
        return List.of(Arrays.copyOf(blocks, blockCount));
    }

    // ------------------------------------------------------------------ names

    /** The name as a string (for messages and listings). */
    final String nameString() {
        return new String(name, StandardCharsets.UTF_8);
    }

    /** The node's path, for messages. */
    final String path() {
        if (parent == null) {
            return "/";
        }
        StringBuilder b = new StringBuilder();
        appendPath(b);
        return b.toString();
    }

    final void appendPath(StringBuilder b) {
        if (parent == null) {
            return;
        }
        parent.appendPath(b);
        b.append('/').append(nameString());
    }
}
