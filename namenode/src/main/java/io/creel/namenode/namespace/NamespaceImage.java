package io.creel.namenode.namespace;

import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.registry.ServerRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bridge between a {@link Namespace} and its persistent form: {@link #snapshot} describes the
 * whole namespace as {@link NamespaceLog} changes (a checkpoint), and a {@link Rebuilder} applies
 * logged changes to a fresh namespace before it serves (a restart).
 */
public final class NamespaceImage {
    private NamespaceImage() {
    }

    /** What a checkpoint needs besides the nodes. */
    public record Head(long rootId, long lastId) {
    }

    /**
     * Under the namespace lock: describes every node to {@code sink} (parents before children, each
     * Table's pending KeyValue versions after it), then runs {@code thenLocked} (which starts a new
     * log segment, so the image and the log meet exactly).
     *
     * @return the root's id and the last node id handed out
     */
    public static Head snapshot(Namespace ns, NamespaceLog sink, Runnable thenLocked) {
        synchronized (ns) {
            NodeTable nodes = ns.nodes();
            Container root = nodes.root();
            describeBlocks(root, sink);
            ns.ownership().describeTo(root, sink);
            ns.ownership().describeCredentials(sink);
            ArrayDeque<Node> todo = new ArrayDeque<>(root.childList());
            while (!todo.isEmpty()) {
                Node n = todo.removeFirst();
                describe(n, sink);
                if (n instanceof Container c && c.ordered()) {
                    sink.ordered(n.id);
                }
                ns.ownership().describeTo(n, sink);
                long[] owner = ns.owned().logged(n.id);
                if (owner != null) {
                    sink.owned(n.id, owner[0], owner[1], owner[2]);
                }
                if (n instanceof Container c) {
                    todo.addAll(c.childList());
                    todo.addAll(c.pendingList());
                }
            }
            thenLocked.run();
            return new Head(root.id, nodes.lastId());
        }
    }

    private static void describe(Node n, NamespaceLog sink) {
        sink.created(n.id, n.type, n.name, n.parent.id, n.placement.storageClass(), n.placement.locationClass(),
                n.placement.replication(), n.enumerable(), n.state == Node.State.PENDING, n.slot, n.modifiedMillis);
        describeBlocks(n, sink);
        if (n instanceof DataNode d) {
            if (d.inline != null) {
                sink.inline(d.id, d.inline, d.modifiedMillis);
            } else if (d.length != 0) {
                sink.length(d.id, d.length, d.modifiedMillis);
            }
        }
    }

    private static void describeBlocks(Node n, NamespaceLog sink) {
        for (int i = 0; i < n.blockCount(); i++) {
            sink.block(n.id, i, n.block(i));
        }
    }

    /**
     * Applies logged changes to a namespace that has not served yet. A change that does not fit (a
     * node that does not exist, a block out of order) throws {@link IllegalStateException}; the
     * reader names the file and offset.
     */
    public static final class Rebuilder {
        private final Namespace ns;
        private final NodeTable nodes;
        private final Map<Long, Long> rootAliases = new HashMap<>();
        private long lastId;

        /** Rebuilds into {@code ns}, which must be fresh. */
        public Rebuilder(Namespace ns) {
            this.ns = ns;
            this.nodes = ns.nodes();
        }

        /** The image was taken when the root had id {@code rootId} (a new id each run) and ids reached {@code lastId}. */
        public void head(long rootId, long imageLastId) {
            rootAliases.put(rootId, nodes.root().id);
            lastId = Math.max(lastId, imageLastId);
        }

        private Node node(long id) {
            Node n = nodes.get(rootAliases.getOrDefault(id, id));
            if (n == null) {
                throw new IllegalStateException("node " + id + " does not exist");
            }
            return n;
        }

        public void created(long id, NodeType type, byte[] name, long parentId, String storageClass,
                            String locationClass, int replication, boolean enumerable, boolean pending, int slot,
                            long modified) {
            Node parentNode = node(parentId);
            if (nodes.get(id) != null) {
                throw new IllegalStateException("node " + id + " is created twice");
            }
            if (!parentNode.type.mayContain(type)) {
                throw new IllegalStateException("a " + parentNode.type.displayName() + " cannot hold a "
                        + type.displayName());
            }
            Container parent = (Container) parentNode;
            Placement placement = nodes.placement(storageClass, locationClass, replication);
            Node.State state = pending ? Node.State.PENDING : Node.State.LIVE;
            Node n = type.isContainer()
                    ? new Container(id, type, name, parent, placement, type != NodeType.TABLE || enumerable, modified, state)
                    : new DataNode(id, type, name, parent, placement, modified, state);
            n.slot = slot;
            if (pending) {
                if (!(n instanceof DataNode v) || type != NodeType.KEYVALUE) {
                    throw new IllegalStateException("only a KeyValue version can be pending, not a " + type.displayName());
                }
                parent.addPending(v);
            } else {
                if (parent.child(name) != null) {
                    throw new IllegalStateException(n.nameString() + " exists twice in node " + parentId);
                }
                parent.putChild(n);
                parent.modifiedMillis = Math.max(parent.modifiedMillis, modified);
            }
            nodes.add(n);
            lastId = Math.max(lastId, id);
        }

        public void block(long nodeId, int index, AllocatedBlock block) {
            Node n = node(nodeId);
            if (index < n.blockCount()) {
                n.setBlock(index, block); // moved away from a server its writer could not reach
            } else if (index == n.blockCount()) {
                n.addBlock(block);
            } else {
                throw new IllegalStateException("block " + index + " of node " + nodeId + " follows "
                        + n.blockCount() + " blocks");
            }
        }

        /** The Table just created keeps its keys in order. */
        public void ordered(long nodeId) {
            if (!(node(nodeId) instanceof Container c) || c.type != NodeType.TABLE) {
                throw new IllegalStateException("node " + nodeId + " is not a Table; only a Table keeps its keys in order");
            }
            c.keepOrder();
        }

        /** The node just created has its own replication factor. */
        public void replication(long nodeId, int copies) {
            Node n = node(nodeId);
            n.placement = nodes.placement(n.placement.storageClass(), n.placement.locationClass(), copies);
        }

        public void trimmed(long nodeId, int keep) {
            node(nodeId).truncateBlocks(keep);
        }

        public void length(long nodeId, long length, long modified) {
            DataNode n = dataNode(nodeId);
            n.length = length;
            n.inline = null;
            n.modifiedMillis = modified;
        }

        public void inline(long nodeId, byte[] data, long modified) {
            DataNode n = dataNode(nodeId);
            n.length = data.length;
            n.inline = data;
            n.modifiedMillis = modified;
        }

        private DataNode dataNode(long id) {
            if (!(node(id) instanceof DataNode d)) {
                throw new IllegalStateException("node " + id + " is not a File or KeyValue; it has no length");
            }
            return d;
        }

        public void published(long versionId, int slot, long modified) {
            DataNode v = dataNode(versionId);
            Container table = v.parent;
            if (!table.removePending(v)) {
                throw new IllegalStateException("node " + versionId + " is not a pending KeyValue version");
            }
            Node old = table.putChild(v);
            if (old != null) {
                forget(old);
            }
            v.state = Node.State.LIVE;
            v.slot = slot;
            v.modifiedMillis = modified;
            table.modifiedMillis = modified;
        }

        public void removed(long nodeId) {
            Node n = node(nodeId);
            if (n.parent == null) {
                throw new IllegalStateException("the root cannot be removed");
            }
            if (n.state == Node.State.PENDING) {
                n.parent.removePending((DataNode) n);
            } else {
                n.parent.removeChild(n);
            }
            forget(n);
        }

        /** See {@link NamespaceLog#access}. */
        public void access(long nodeId, String owner, String group, int mode) {
            ns.ownership().restore(node(nodeId), owner, group, mode);
        }

        /** See {@link NamespaceLog#credential}. */
        public void credential(String name, String id, List<String> groups, long createdMillis) {
            ns.ownership().restoreCredential(new io.creel.common.protocol.CredentialRecord(name, id, groups,
                    createdMillis));
        }

        /** See {@link NamespaceLog#revoked}. */
        public void revoked(String name) {
            ns.ownership().restoreRevoked(name);
        }

        /** See {@link NamespaceLog#owned}. */
        public void owned(long nodeId, long ownerHigh, long ownerLow, long graceMillis) {
            Node n = node(nodeId);
            if (graceMillis == 0) {
                ns.owned().drop(n.id);
            } else if (graceMillis < -1) {
                throw new IllegalStateException("node " + nodeId + " expires after a negative time " + graceMillis);
            } else {
                ns.owned().own(n.id, ownerHigh, ownerLow, new io.creel.common.protocol.Expiry(graceMillis));
            }
        }

        public void moved(long nodeId, long newParentId, byte[] name, int slot, long modified) {
            Node n = node(nodeId);
            if (!(node(newParentId) instanceof Container newParent)) {
                throw new IllegalStateException("node " + newParentId + " is not a container");
            }
            n.parent.removeChild(n);
            n.parent.modifiedMillis = modified;
            n.parent = newParent;
            n.rename(name);
            n.slot = slot;
            n.modifiedMillis = modified;
            newParent.putChild(n);
            newParent.modifiedMillis = modified;
        }

        private void forget(Node top) {
            ArrayDeque<Node> todo = new ArrayDeque<>();
            todo.push(top);
            while (!todo.isEmpty()) {
                Node x = todo.pop();
                x.state = Node.State.RETIRED;
                nodes.forget(x.id);
                ns.owned().drop(x.id);
                if (x instanceof Container c) {
                    c.childList().forEach(todo::push);
                    c.pendingList().forEach(todo::push);
                }
            }
        }

        /**
         * Ends the rebuild: pending KeyValue versions are dropped (their writers must create again),
         * owners of expiring nodes count as heard now,
         * record slots and counts are restored, every storage server holding blocks is known to the
         * registry (dead until it registers with the same identity), its used blocks are taken out
         * of the free lists, and ids and tags continue above every one ever given.
         *
         * @param maxTag the largest tag ever logged
         * @return the number of blocks in use
         */
        public long finish(ServerRegistry registry, BlockAllocator allocator, long maxTag) {
            synchronized (ns) {
                Map<String, StorageServerInfo> servers = new HashMap<>();
                Map<StorageServerInfo, List<Long>> used = new HashMap<>();
                long[] live = new long[NodeType.values().length];
                long blocks = 0;
                ArrayDeque<Node> todo = new ArrayDeque<>();
                todo.push(nodes.root());
                while (!todo.isEmpty()) {
                    Node n = todo.pop();
                    live[n.type.ordinal()]++;
                    if (n instanceof Container c) {
                        for (DataNode v : c.pendingList()) {
                            c.removePending(v);
                            forget(v);
                        }
                        for (Node child : c.childList()) {
                            if (c.enumerable && child.slot >= 0) {
                                c.slots().restoreUsed(child.slot);
                                c.recordWritten(child.slot); // logged records were written before they were acknowledged
                            }
                            todo.push(child);
                        }
                    }
                    for (int i = 0; i < n.blockCount(); i++) {
                        AllocatedBlock b = n.block(i);
                        List<io.creel.common.protocol.BlockCopy> copies = new ArrayList<>();
                        for (io.creel.common.protocol.BlockCopy c : b.copies()) {
                            StorageServerInfo s = c.server();
                            String identity = s.address() + "#" + s.localToken();
                            StorageServerInfo known = servers.computeIfAbsent(identity, k -> registry.restore(s));
                            copies.add(new io.creel.common.protocol.BlockCopy(known, c.blockNumber(), c.tag()));
                            used.computeIfAbsent(known, k -> new ArrayList<>()).add(c.blockNumber());
                        }
                        n.setBlock(i, AllocatedBlock.of(copies));
                        blocks++;
                    }
                }
                // Retired ids left from removals are gone with their nodes; only reachable nodes remain.
                nodes.forgetIf(n -> n.state != Node.State.LIVE);
                for (Map.Entry<StorageServerInfo, List<Long>> e : used.entrySet()) {
                    List<Long> numbers = e.getValue();
                    numbers.sort(Comparator.naturalOrder());
                    for (long number : numbers) {
                        allocator.restoreUsed(e.getKey(), number);
                    }
                }
                allocator.advanceTagPast(maxTag);
                // Heartbeats are not logged: every owner gets a whole grace from now, so no live client
                // loses its nodes to the restart.
                ns.owned().heardAll();
                nodes.setLiveCounts(live);
                nodes.advanceIdsPast(lastId);
                return blocks;
            }
        }
    }
}
