package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.BlockLocation;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the blocks of nodes are: allocating them in order (MAP with a lease), answering where they
 * are (MAP without one, LOCATE), moving a block whose server its writer cannot reach, and giving back
 * blocks beyond a committed length. Every allocation is logged. Called under the namespace lock.
 */
final class BlockMap {
    private static final Logger LOG = LoggerFactory.getLogger(BlockMap.class);

    private final NodeTable nodes;
    private final BlockAllocator allocator;
    private final long blockSize;
    private final Supplier<NamespaceLog> log;
    /** Copies dropped from blocks whose writer could not reach them, ever (tells the repair to look). */
    private long copiesDropped;

    BlockMap(NodeTable nodes, BlockAllocator allocator, long blockSize, Supplier<NamespaceLog> log) {
        this.nodes = nodes;
        this.allocator = allocator;
        this.blockSize = blockSize;
        this.log = log;
    }

    /**
     * A new block for {@code n}, of its storage class and location and with its replication factor's
     * copies, away from servers its writer cannot reach.
     */
    AllocatedBlock allocate(Node n) {
        Set<Integer> avoid = n instanceof DataNode d && d.lease != null ? d.lease.unreachable : Set.of();
        return allocator.allocate(NodeTable.storageClassOf(n, allocator.defaultClass()), NodeTable.locationOf(n),
                avoid, NodeTable.replicationOf(n, allocator));
    }

    /**
     * The first block of a new File or KeyValue expected to hold {@code sizeHint} bytes (0: unknown):
     * of a size class when one fits (see {@link BlockAllocator#allocateFirst}), else whole. Only a
     * create takes it: its reply tells the writer the node's layout before any byte is written, and a
     * block 0 allocated later by MAP (after a close gave an unwritten one back) is whole.
     */
    AllocatedBlock allocateFirst(DataNode n, long sizeHint) {
        return allocator.allocateFirst(NodeTable.storageClassOf(n, allocator.defaultClass()), NodeTable.locationOf(n),
                Set.of(), NodeTable.replicationOf(n, allocator), sizeHint);
    }

    /** See {@link Namespace#map(long, long, long, long, int)}. */
    BlockLocation map(long nodeId, long index, long lease, long unreachableTag, int unreachableServer) {
        Node n = nodes.get(nodeId);
        if (n == null) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId + " does not exist (removed or replaced)");
        }
        if (lease == 0) {
            if (index < n.blockCount()) {
                return n.block((int) index).at(n.id, index);
            }
            throw new CreelException(ErrorCode.NOT_FOUND, n.path() + " (node " + nodeId + ") has no block at index "
                    + index + "; it has " + n.blockCount()
                    + (InlineValues.data(n) != null ? " (its bytes are kept inline by the namenode)" : ""));
        }
        if (n.state == Node.State.RETIRED) {
            throw new CreelException(ErrorCode.NOT_FOUND, n.path() + " (node " + nodeId
                    + ") was removed or replaced; it can no longer be written");
        }
        if (!(n instanceof DataNode d)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": a " + n.type.displayName()
                    + "'s data is written by the namenode; map it without a lease");
        }
        if (d.leaseValue() != lease) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                    + n.type.displayName() + "'s write lease; only the lease holder may allocate blocks");
        }
        if (unreachableTag != 0) {
            return moveUnreachable(d, index, unreachableTag, unreachableServer);
        }
        if (index < d.blockCount()) {
            return d.block((int) index).at(d.id, index);
        }
        if (index > d.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": blocks are allocated in order; with "
                    + d.blockCount() + " blocks the next one is index " + d.blockCount() + ", not " + index);
        }
        AllocatedBlock b = allocate(d);
        d.addBlock(b);
        // A MAP need not wait for its record: the COMMIT that publishes data in this block waits for it.
        log.get().block(d.id, (int) index, b);
        return b.at(d.id, index);
    }

    /** See {@link Namespace#locate}. */
    List<BlockLocation> locate(long nodeId, long first, int count) {
        BlockLocation head = map(nodeId, first, 0, 0, 0);
        Node n = nodes.get(nodeId);
        long end = Math.min(n.blockCount(), first + count);
        List<BlockLocation> out = new ArrayList<>((int) (end - first));
        out.add(head);
        for (long i = first + 1; i < end; i++) {
            out.add(n.block((int) i).at(n.id, i));
        }
        return out;
    }

    private BlockLocation moveUnreachable(DataNode n, long index, long unreachableTag, int unreachableServer) {
        if (index >= n.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": block " + index
                    + " cannot move, it was never allocated (the node has " + n.blockCount() + ")");
        }
        AllocatedBlock old = n.block((int) index);
        if (old.tag() != unreachableTag && !(unreachableServer != 0 && copyTagged(old, unreachableTag))) {
            return old.at(n.id, index); // moved already, for another piece of the same block
        }
        if (unreachableServer != 0 && !old.hasCopyOn(unreachableServer)) {
            return old.at(n.id, index); // that copy was dropped already, for another piece
        }
        if (old.copyCount() > 1) {
            return dropCopy(n, index, old, unreachableServer);
        }
        if (n.inline == null && n.layout(blockSize).start(index) < n.length) {
            throw new CreelException(ErrorCode.UNAVAILABLE, n.path() + ": block " + index + " holds published bytes "
                    + "on storage server " + old.server().address() + ", which the writer cannot reach; it cannot move");
        }
        Set<Integer> avoid = new HashSet<>(n.lease.unreachable);
        avoid.add(old.server().serverId());
        String storageClass = NodeTable.storageClassOf(n, allocator.defaultClass());
        AllocatedBlock b;
        if (old.server().blockSize() < blockSize) {
            // A block of a size class keeps its size: the node's layout, which its writer computes its
            // offsets by, is its block 0's.
            b = allocator.allocateSized(storageClass, NodeTable.locationOf(n), avoid, NodeTable.replicationOf(n, allocator),
                    old.server().blockSize());
            if (b == null) {
                throw new CreelException(ErrorCode.UNAVAILABLE, n.path() + ": block " + index + " is on storage server "
                        + old.server().address() + ", which its writer cannot reach, and no other server of storage "
                        + "class " + storageClass + " has a free block of its size (" + old.server().blockSize()
                        + " bytes) now");
            }
        } else {
            b = allocator.allocate(storageClass, NodeTable.locationOf(n), avoid,
                    NodeTable.replicationOf(n, allocator)); // throws before anything changed
        }
        n.lease.unreachable = Set.copyOf(avoid);
        n.setBlock((int) index, b);
        allocator.retire(List.of(old));
        log.get().block(n.id, (int) index, b);
        LOG.info("{}: block {} moved from storage server {}, which its writer cannot reach, to {}", n.path(), index,
                old.server().address(), b.server().address());
        return b.at(n.id, index);
    }

    /**
     * A writer could not reach the server of one copy of a replicated block: that copy leaves the
     * block (it may hold only part of what was written) and the write goes on with the others. The
     * block is short of its factor until the namenode's repair copies it again, once the node is
     * closed ({@link Replicas}).
     */
    private BlockLocation dropCopy(DataNode n, long index, AllocatedBlock old, int server) {
        List<BlockCopy> keep = new ArrayList<>();
        List<BlockCopy> dropped = new ArrayList<>();
        for (BlockCopy c : old.copies()) {
            (c.server().serverId() == server ? dropped : keep).add(c);
        }
        // Every copy keeps its own tag: a copy the repair made has a newer one than the copies written
        // together, and its server refuses any other. If the first copy left, the block is named by the
        // next one's tag from now on; pieces still under way that name it by the old tag are recognised
        // by the copies that still carry it (moveUnreachable).
        AllocatedBlock now = AllocatedBlock.of(keep);
        Set<Integer> avoid = new HashSet<>(n.lease.unreachable);
        avoid.add(server);
        n.lease.unreachable = Set.copyOf(avoid);
        n.setBlock((int) index, now);
        allocator.retireCopies(dropped);
        copiesDropped++;
        log.get().block(n.id, (int) index, now);
        LOG.info("{}: block {} left its copy on storage server {}, which its writer cannot reach; {} cop{} left until "
                + "the node is closed and repaired", n.path(), index, dropped.get(0).server().address(), keep.size(),
                keep.size() == 1 ? "y" : "ies");
        return now.at(n.id, index);
    }

    /** Whether a copy of {@code b} carries {@code tag}: the allocation a writer named by that tag still holds it. */
    private static boolean copyTagged(AllocatedBlock b, long tag) {
        for (BlockCopy c : b.copies()) {
            if (c.tag() == tag) {
                return true;
            }
        }
        return false;
    }

    /** Copies dropped so far because their writer could not reach them. */
    long copiesDropped() {
        return copiesDropped;
    }

    /** Allocates (and logs) blocks of {@code container} until it has block {@code blockIndex}. */
    void growTo(Container container, long blockIndex) {
        while (container.blockCount() <= blockIndex) {
            AllocatedBlock b = allocate(container);
            container.addBlock(b);
            log.get().block(container.id, container.blockCount() - 1, b);
        }
    }

    /**
     * Frees blocks beyond the committed length (all of them when the bytes are inline). A length
     * never shrinks, so these blocks were never readable: no reader can hold their locations, and
     * they need no reuse delay.
     */
    void trim(DataNode n) {
        long keep = n.inline != null ? 0 : n.layout(blockSize).blocksFor(n.length);
        if (n.blockCount() > keep) {
            allocator.freeUnpublished(n.truncateBlocks((int) keep));
            log.get().trimmed(n.id, (int) keep);
        }
    }

    static BlockLocation firstBlock(Node n) {
        return n.blockCount() == 0 ? null : n.block(0).at(n.id, 0);
    }

    /**
     * The first block as a reader (no lease) may learn it: a container's records, or a File's or
     * KeyValue's block 0 once it holds committed bytes. A block a writer holds beyond the committed
     * length goes back at its close without a reuse delay (see {@link #trim}); a reader that had
     * cached its location would later take it for the node's block 0 — and, writing to the node
     * itself, skip allocating it.
     */
    static BlockLocation readableFirstBlock(Node n) {
        if (n instanceof DataNode d && (d.inline != null || d.length == 0)) {
            return null;
        }
        return firstBlock(n);
    }
}
