package io.creel.namenode.namespace;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.allocation.RegionShortage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Directory records and dead storage servers, across the namespace: moving every records block off
 * a server when it is declared dead (not only at the next write into its container), and telling
 * fsck which containers' listings a dead server took along. The moves themselves are
 * {@link DirectoryRecords}'. Called under the namespace lock; each call walks the containers below
 * a node once.
 */
final class RecordsRepair {
    private final DirectoryRecords records;
    private final BlockAllocator allocator;

    RecordsRepair(DirectoryRecords records, BlockAllocator allocator) {
        this.records = records;
        this.allocator = allocator;
    }

    /**
     * Starts moving every records block below {@code top} that is on one of {@code serverIds} to a
     * live server, rewritten from the namespace. A block that needs a region granted first is left
     * where it is, its class in {@code shortOf}: ask for a region and call again.
     */
    Namespace.RecordsMoves moveOffDead(Node top, Set<Integer> serverIds) {
        int started = 0;
        int left = 0;
        Set<String> shortOf = new TreeSet<>();
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            if (todo.pop() instanceof Container c) {
                for (int i = 0; i < c.blockCount(); i++) {
                    if (!c.enumerable || !serverIds.contains(c.block(i).server().serverId())) {
                        continue;
                    }
                    left++;
                    try {
                        if (records.moveOffDead(c, i)) {
                            started++;
                        }
                    } catch (RegionShortage e) {
                        shortOf.add(e.storageClass());
                    }
                }
                c.childList().forEach(todo::push);
            }
        }
        return new Namespace.RecordsMoves(started, shortOf, left);
    }

    /**
     * The containers at or below {@code top} whose directory records are on a server that is not
     * live (their listing fails), then those whose records were moved off one recently.
     */
    List<Namespace.RecordsLoss> losses(Node top) {
        List<Namespace.RecordsLoss> out = new ArrayList<>();
        Set<Container> under = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            if (todo.pop() instanceof Container c) {
                under.add(c);
                for (int i = 0; i < c.blockCount(); i++) {
                    StorageServerInfo s = c.block(i).server();
                    if (c.enumerable && !allocator.isLive(s)) {
                        out.add(new Namespace.RecordsLoss(c.path(), records.namesIn(c, i), s, null,
                                allocator.silentForMillis(s)));
                    }
                }
                c.childList().forEach(todo::push);
            }
        }
        for (DirectoryRecords.Moved m : records.moved()) {
            if (m.container().state == Node.State.LIVE && under.contains(m.container())) {
                out.add(new Namespace.RecordsLoss(m.container().path(), m.names(), m.from(), m.to(),
                        m.unlistedMillis()));
            }
        }
        return out;
    }
}
