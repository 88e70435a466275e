package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.Utf8Path;
import io.creel.namenode.allocation.BlockAllocator;
import java.util.function.Predicate;

/**
 * The nodes: the tree from the root by name, every node (removed ones until their reuse delay ends)
 * by id, and the id counter. Resolves paths and the placement a node inherits from its ancestors.
 * Guarded by the namespace lock.
 */
final class NodeTable {
    private final Container root;
    private final NodeIndex byId = new NodeIndex();
    private final Placement.Interner placements = new Placement.Interner();
    private long lastId;
    private long liveCount;
    /** Reachable nodes per {@link NodeType}, by ordinal. */
    private final long[] liveByType = new long[NodeType.values().length];

    /**
     * @param firstId ids start above this (the namespace starts them from the clock, so a restarted
     *                namenode never hands out an id a client still holds)
     * @param now     the root's modification time
     */
    NodeTable(long firstId, long now) {
        this.lastId = firstId;
        this.root = new Container(nextId(), NodeType.DIRECTORY, new byte[0], null, Placement.INHERIT, true, now,
                Node.State.LIVE);
        byId.put(root);
        liveCount = 1;
        liveByType[NodeType.DIRECTORY.ordinal()] = 1;
    }

    Container root() {
        return root;
    }

    /** A new id, above every id handed out or restored. */
    long nextId() {
        return ++lastId;
    }

    /** The largest id handed out or restored. */
    long lastId() {
        return lastId;
    }

    /** After a restart: later ids go above {@code id}. */
    void advanceIdsPast(long id) {
        lastId = Math.max(lastId, id);
    }

    /** The shared placement for these classes. */
    Placement placement(String storageClass, String locationClass, int replication) {
        return placements.of(storageClass, locationClass, replication);
    }

    /** The node with this id (live, pending or retired but not yet forgotten), or {@code null}. */
    Node get(long id) {
        return byId.get(id);
    }

    /** Makes {@code n} resolvable by id. */
    void add(Node n) {
        byId.put(n);
    }

    /** {@code id} no longer resolves. */
    void forget(long id) {
        byId.remove(id);
    }

    /** Forgets every node that {@code drop} matches. */
    void forgetIf(Predicate<Node> drop) {
        byId.removeIf(drop);
    }

    /** Nodes reachable by path, the root included. */
    long liveCount() {
        return liveCount;
    }

    /** Reachable nodes of each type, by {@link NodeType#ordinal()}; a copy. */
    long[] liveByType() {
        return liveByType.clone();
    }

    void liveAdded(NodeType type) {
        liveCount++;
        liveByType[type.ordinal()]++;
    }

    void liveRemoved(NodeType type) {
        liveCount--;
        liveByType[type.ordinal()]--;
    }

    /** After a restart: the counts of reachable nodes per type, as found by walking the tree. */
    void setLiveCounts(long[] byType) {
        long total = 0;
        for (int i = 0; i < liveByType.length; i++) {
            liveByType[i] = byType[i];
            total += byType[i];
        }
        liveCount = total;
    }

    /** The node at {@code path}, or NOT_FOUND / NOT_A_CONTAINER naming the component that fails. */
    Node resolve(Utf8Path path) {
        return resolve(path, path.depth());
    }

    /** The node at the first {@code depth} components of {@code path}. */
    Node resolve(Utf8Path path, int depth) {
        Node cur = root;
        byte[] bytes = path.bytes();
        for (int i = 0; i < depth; i++) {
            if (!(cur instanceof Container c)) {
                throw new CreelException(ErrorCode.NOT_A_CONTAINER, path.prefix(depth) + ": " + cur.path() + " is a "
                        + cur.type.displayName() + ", which holds no children");
            }
            int from = path.start(i);
            int to = path.end(i);
            Node next = c.child(bytes, from, to, ChildTable.hash(bytes, from, to));
            if (next == null) {
                String missing = path.prefix(i + 1);
                throw new CreelException(ErrorCode.NOT_FOUND, i + 1 == depth
                        ? path.prefix(depth) + ": no such node" : path.prefix(depth) + ": " + missing + " does not exist");
            }
            cur = next;
        }
        return cur;
    }

    /** The parent a node of {@code type} at {@code path} goes in: it must exist and accept the type. */
    Container resolveParent(Utf8Path path, NodeType type) {
        int parentDepth = path.depth() - 1;
        Node parent;
        try {
            parent = resolve(path, parentDepth);
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                throw new CreelException(ErrorCode.NOT_FOUND, path + ": parent " + path.prefix(parentDepth)
                        + " does not exist");
            }
            throw e;
        }
        if (!parent.type.mayContain(type)) {
            throw new CreelException(ErrorCode.INVALID_PARENT, path + ": " + NodeType.containmentRule(type)
                    + " (" + path.prefix(parentDepth) + " is a " + parent.type.displayName() + ")");
        }
        return (Container) parent;
    }

    /** The storage class {@code n}'s blocks come from: its own, else its nearest ancestor's, else {@code dflt}. */
    static String storageClassOf(Node n, String dflt) {
        for (Node x = n; x != null; x = x.parent) {
            if (!x.placement.storageClass().isEmpty()) {
                return x.placement.storageClass();
            }
        }
        return dflt;
    }

    /**
     * The copies of each of {@code n}'s blocks: its own factor, else its nearest ancestor's, else its
     * storage class's. Only Files and KeyValues are replicated: a container's records are rewritten
     * from the namespace when their server dies.
     */
    static int replicationOf(Node n, BlockAllocator allocator) {
        if (!(n instanceof DataNode)) {
            return 1;
        }
        for (Node x = n; x != null; x = x.parent) {
            if (x.placement.replication() > 0) {
                return x.placement.replication();
            }
        }
        return allocator.replicationOf(storageClassOf(n, allocator.defaultClass()));
    }

    /** The host {@code n}'s blocks prefer: its own, else its nearest ancestor's, else none (""). */
    static String locationOf(Node n) {
        for (Node x = n; x != null; x = x.parent) {
            if (!x.placement.locationClass().isEmpty()) {
                return x.placement.locationClass();
            }
        }
        return "";
    }
}
