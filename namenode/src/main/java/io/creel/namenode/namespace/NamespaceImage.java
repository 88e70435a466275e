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
import java.util.ListIterator;
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
            Node root = nodes.root();
            describeBlocks(root, sink);
            ArrayDeque<Node> todo = new ArrayDeque<>(root.children.values());
            while (!todo.isEmpty()) {
                Node n = todo.removeFirst();
                describe(n, sink);
                todo.addAll(n.children.values());
                todo.addAll(n.pendingVersions);
            }
            thenLocked.run();
            return new Head(root.id, nodes.lastId());
        }
    }

    private static void describe(Node n, NamespaceLog sink) {
        sink.created(n.id, n.type, n.name, n.parent.id, n.storageClass, n.locationClass, n.enumerable,
                n.state == Node.State.PENDING, n.slot, n.modifiedMillis);
        describeBlocks(n, sink);
        if (n.length != 0) {
            sink.length(n.id, n.length, n.modifiedMillis);
        }
    }

    private static void describeBlocks(Node n, NamespaceLog sink) {
        for (int i = 0; i < n.blocks.size(); i++) {
            sink.block(n.id, i, n.blocks.get(i));
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

        public void created(long id, NodeType type, String name, long parentId, String storageClass,
                            String locationClass, boolean enumerable, boolean pending, int slot, long modified) {
            Node parent = node(parentId);
            if (nodes.get(id) != null) {
                throw new IllegalStateException("node " + id + " is created twice");
            }
            if (!parent.type.mayContain(type)) {
                throw new IllegalStateException("a " + parent.type.displayName() + " cannot hold a " + type.displayName());
            }
            Node n = new Node(id, type, name, parent, storageClass, locationClass, enumerable, modified,
                    pending ? Node.State.PENDING : Node.State.LIVE);
            n.slot = slot;
            if (pending) {
                parent.pendingVersions.add(n);
            } else {
                if (parent.children.containsKey(name)) {
                    throw new IllegalStateException(name + " exists twice in node " + parentId);
                }
                parent.children.put(name, n);
                parent.modifiedMillis = Math.max(parent.modifiedMillis, modified);
            }
            nodes.add(n);
            lastId = Math.max(lastId, id);
        }

        public void block(long nodeId, int index, AllocatedBlock block) {
            Node n = node(nodeId);
            if (index < n.blocks.size()) {
                n.blocks.set(index, block); // moved away from a server its writer could not reach
            } else if (index == n.blocks.size()) {
                n.blocks.add(block);
            } else {
                throw new IllegalStateException("block " + index + " of node " + nodeId + " follows "
                        + n.blocks.size() + " blocks");
            }
        }

        public void trimmed(long nodeId, int keep) {
            Node n = node(nodeId);
            if (keep < n.blocks.size()) {
                n.blocks.subList(keep, n.blocks.size()).clear();
            }
        }

        public void length(long nodeId, long length, long modified) {
            Node n = node(nodeId);
            n.length = length;
            n.modifiedMillis = modified;
        }

        public void published(long versionId, int slot, long modified) {
            Node v = node(versionId);
            Node table = v.parent;
            if (!table.pendingVersions.remove(v)) {
                throw new IllegalStateException("node " + versionId + " is not a pending KeyValue version");
            }
            Node old = table.children.put(v.name, v);
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
                n.parent.pendingVersions.remove(n);
            } else if (n.parent.children.get(n.name) == n) {
                n.parent.children.remove(n.name);
            }
            forget(n);
        }

        public void moved(long nodeId, long newParentId, String name, int slot, long modified) {
            Node n = node(nodeId);
            Node newParent = node(newParentId);
            if (n.parent.children.get(n.name) == n) {
                n.parent.children.remove(n.name);
            }
            n.parent.modifiedMillis = modified;
            n.parent = newParent;
            n.name = name;
            n.slot = slot;
            n.modifiedMillis = modified;
            newParent.children.put(name, n);
            newParent.modifiedMillis = modified;
        }

        private void forget(Node top) {
            ArrayDeque<Node> todo = new ArrayDeque<>();
            todo.push(top);
            while (!todo.isEmpty()) {
                Node x = todo.pop();
                x.state = Node.State.RETIRED;
                nodes.forget(x.id);
                x.children.values().forEach(todo::push);
                x.pendingVersions.forEach(todo::push);
            }
        }

        /**
         * Ends the rebuild: pending KeyValue versions are dropped (their writers must create again),
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
                long live = 0;
                long blocks = 0;
                ArrayDeque<Node> todo = new ArrayDeque<>();
                todo.push(nodes.root());
                while (!todo.isEmpty()) {
                    Node n = todo.pop();
                    live++;
                    if (!n.pendingVersions.isEmpty()) {
                        n.pendingVersions.forEach(this::forget);
                        n.pendingVersions.clear();
                    }
                    for (Node c : n.children.values()) {
                        if (n.slots != null && c.slot >= 0) {
                            n.slots.restoreUsed(c.slot);
                            n.recordWritten(c.slot); // logged records were written before they were acknowledged
                        }
                        todo.push(c);
                    }
                    for (ListIterator<AllocatedBlock> it = n.blocks.listIterator(); it.hasNext(); ) {
                        AllocatedBlock b = it.next();
                        StorageServerInfo s = b.server();
                        String identity = s.address() + "#" + s.localToken();
                        StorageServerInfo known = servers.computeIfAbsent(identity, k -> registry.restore(s));
                        it.set(new AllocatedBlock(known, b.blockNumber(), b.tag()));
                        used.computeIfAbsent(known, k -> new ArrayList<>()).add(b.blockNumber());
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
                nodes.setLiveCount(live);
                nodes.advanceIdsPast(lastId);
                return blocks;
            }
        }
    }
}
