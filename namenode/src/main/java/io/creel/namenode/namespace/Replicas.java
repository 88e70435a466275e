package io.creel.namenode.namespace;

import io.creel.common.namespace.BlockLayout;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.BlockLocation;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The replication factor of blocks that lost a copy: finding the blocks of closed Files and
 * KeyValues that have fewer copies on live, non-draining servers than their factor (a server died,
 * was decommissioned, or its writer could not reach it), reserving new copies for them, and
 * installing those once they hold the block's bytes — unless the node changed meanwhile. The
 * copying itself happens outside the lock ({@code io.creel.namenode.replication.ReplicaRepair}).
 * Called under the namespace lock.
 *
 * <p>A node being written (it has a lease) waits: its last block may still grow, and a copy taken
 * now would miss what comes later. A block without any live copy is lost, not repaired.
 */
final class Replicas {
    private final NodeTable nodes;
    private final BlockAllocator allocator;
    private final long blockSize;
    private final Supplier<NamespaceLog> log;

    Replicas(NodeTable nodes, BlockAllocator allocator, long blockSize, Supplier<NamespaceLog> log) {
        this.nodes = nodes;
        this.allocator = allocator;
        this.blockSize = blockSize;
        this.log = log;
    }

    /** See {@link Namespace#replicationWork}. */
    ReplicationScan scan(int max) {
        List<RepairTask> tasks = new ArrayList<>();
        long under = 0;
        long lost = 0;
        long waiting = 0;
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(nodes.root());
        while (!todo.isEmpty()) {
            Node x = todo.pop();
            if (x instanceof Container c) {
                c.childList().forEach(todo::push);
                continue;
            }
            DataNode d = (DataNode) x;
            if (d.inline != null || d.state != Node.State.LIVE) {
                continue;
            }
            int want = NodeTable.replicationOf(d, allocator);
            BlockLayout layout = d.layout(blockSize);
            long published = Math.min(d.blockCount(), layout.blocksFor(d.length));
            for (int i = 0; i < published; i++) {
                AllocatedBlock b = d.block(i);
                int good = 0;
                boolean unsettled = false;
                List<BlockLocation> readable = new ArrayList<>();
                for (BlockLocation c : b.at(d.id, i).copies()) {
                    if (allocator.isLive(c.server())) {
                        readable.add(c);
                        if (!allocator.isDraining(c.server())) {
                            good++;
                        }
                    } else if (!allocator.isDeclaredDead(c.server())) {
                        unsettled = true; // silent, but not given up on yet (or not back since a restart)
                    }
                }
                if (unsettled) {
                    continue;
                }
                if (good >= want && good == b.copyCount()) {
                    continue;
                }
                if (readable.isEmpty()) {
                    lost++;
                    continue;
                }
                if (good < want) {
                    under++;
                }
                if (d.leased()) {
                    waiting++;
                } else if (tasks.size() < max) {
                    long bytes = Math.min(layout.size(i), d.length - layout.start(i));
                    tasks.add(new RepairTask(d.id, d.path(), i, b.tag(), d.length, bytes,
                            Math.max(0, want - good), List.copyOf(readable)));
                }
            }
        }
        return new ReplicationScan(List.copyOf(tasks), under, lost, waiting);
    }

    /** See {@link Namespace#reserveCopies}. */
    List<BlockCopy> reserve(RepairTask t) {
        AllocatedBlock b = current(t);
        if (b == null || t.missing() == 0) {
            return List.of();
        }
        DataNode d = (DataNode) nodes.get(t.nodeId());
        List<BlockCopy> existing = new ArrayList<>();
        for (BlockCopy c : b.copies()) {
            if (allocator.isLive(c.server()) && !allocator.isDraining(c.server())) {
                existing.add(c);
            }
        }
        String cls = NodeTable.storageClassOf(d, allocator.defaultClass());
        int want = NodeTable.replicationOf(d, allocator);
        List<BlockCopy> taken = new ArrayList<>();
        try {
            for (int i = 0; i < t.missing(); i++) {
                List<BlockCopy> placed = new ArrayList<>(existing);
                placed.addAll(taken);
                taken.add(allocator.allocateCopy(cls, placed, Set.of(), want, 0, b.server().blockSize()));
            }
        } catch (RuntimeException e) {
            allocator.freeUnpublishedCopies(taken);
            throw e;
        }
        return taken;
    }

    /** See {@link Namespace#installCopies}. */
    boolean install(RepairTask t, List<BlockCopy> made) {
        AllocatedBlock b = current(t);
        if (b == null) {
            allocator.freeUnpublishedCopies(made);
            return false;
        }
        List<BlockCopy> keep = new ArrayList<>();
        List<BlockCopy> dropped = new ArrayList<>();
        for (BlockCopy c : b.copies()) {
            (allocator.isLive(c.server()) && !allocator.isDraining(c.server()) ? keep : dropped).add(c);
        }
        keep.addAll(made);
        if (keep.isEmpty()) {
            return false; // its live copies are all draining and none was made: try again later
        }
        AllocatedBlock now = AllocatedBlock.of(keep);
        DataNode d = (DataNode) nodes.get(t.nodeId());
        d.setBlock(t.index(), now);
        log.get().block(d.id, t.index(), now);
        // Readers may hold the dropped copies' locations: those blocks wait out the reuse delay.
        allocator.retireCopies(dropped);
        return true;
    }

    /** Gives back copies reserved for a repair that did not finish (never readable: no reuse delay). */
    void abandon(List<BlockCopy> made) {
        allocator.freeUnpublishedCopies(made);
    }

    /** The block the task is about if it is still as it was when found (same allocation, node unchanged), else null. */
    private AllocatedBlock current(RepairTask t) {
        Node n = nodes.get(t.nodeId());
        if (!(n instanceof DataNode d) || d.state != Node.State.LIVE || d.leased() || d.length != t.length()
                || d.inline != null || t.index() >= d.blockCount()) {
            return null;
        }
        AllocatedBlock b = d.block(t.index());
        return b.tag() == t.tag() ? b : null;
    }
}
