package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The nodes: the tree from the root by name, every node (removed ones until their reuse delay ends)
 * by id, and the id counter. Resolves paths and the placement a node inherits from its ancestors.
 * Guarded by the namespace lock.
 */
final class NodeTable {
    private final Node root;
    private final Map<Long, Node> byId = new HashMap<>();
    private long lastId;
    private long liveCount;

    /**
     * @param firstId ids start above this (the namespace starts them from the clock, so a restarted
     *                namenode never hands out an id a client still holds)
     * @param now     the root's modification time
     */
    NodeTable(long firstId, long now) {
        this.lastId = firstId;
        this.root = new Node(nextId(), NodeType.DIRECTORY, "", null, "", "", true, now, Node.State.LIVE);
        byId.put(root.id, root);
        liveCount = 1;
    }

    Node root() {
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

    /** The node with this id (live, pending or retired but not yet forgotten), or {@code null}. */
    Node get(long id) {
        return byId.get(id);
    }

    /** Makes {@code n} resolvable by id. */
    void add(Node n) {
        byId.put(n.id, n);
    }

    /** {@code id} no longer resolves. */
    void forget(long id) {
        byId.remove(id);
    }

    /** Forgets every node that {@code drop} matches. */
    void forgetIf(Predicate<Node> drop) {
        byId.values().removeIf(drop);
    }

    /** Nodes reachable by path, the root included. */
    long liveCount() {
        return liveCount;
    }

    void liveAdded() {
        liveCount++;
    }

    void liveRemoved() {
        liveCount--;
    }

    /** After a restart: the count of reachable nodes, as found by walking the tree. */
    void setLiveCount(long count) {
        liveCount = count;
    }

    /** The node at {@code path}, or NOT_FOUND / NOT_A_CONTAINER naming the component that fails. */
    Node resolve(PathName path) {
        Node cur = root;
        for (int i = 0; i < path.depth(); i++) {
            if (!cur.type.isContainer()) {
                throw new CreelException(ErrorCode.NOT_A_CONTAINER, path + ": " + cur.path() + " is a "
                        + cur.type.displayName() + ", which holds no children");
            }
            Node next = cur.children.get(path.component(i));
            if (next == null) {
                String missing = cur.path().equals("/") ? "/" + path.component(i) : cur.path() + "/" + path.component(i);
                throw new CreelException(ErrorCode.NOT_FOUND, missing.equals(path.toString())
                        ? path + ": no such node" : path + ": " + missing + " does not exist");
            }
            cur = next;
        }
        return cur;
    }

    /** The parent a node of {@code type} at {@code path} goes in: it must exist and accept the type. */
    Node resolveParent(PathName path, NodeType type) {
        PathName parentPath = path.parent();
        Node parent;
        try {
            parent = resolve(parentPath);
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                throw new CreelException(ErrorCode.NOT_FOUND, path + ": parent " + parentPath + " does not exist");
            }
            throw e;
        }
        if (!parent.type.mayContain(type)) {
            throw new CreelException(ErrorCode.INVALID_PARENT, path + ": " + NodeType.containmentRule(type)
                    + " (" + parentPath + " is a " + parent.type.displayName() + ")");
        }
        return parent;
    }

    /** The storage class {@code n}'s blocks come from: its own, else its nearest ancestor's, else {@code dflt}. */
    static String storageClassOf(Node n, String dflt) {
        for (Node x = n; x != null; x = x.parent) {
            if (!x.storageClass.isEmpty()) {
                return x.storageClass;
            }
        }
        return dflt;
    }

    /** The host {@code n}'s blocks prefer: its own, else its nearest ancestor's, else none (""). */
    static String locationOf(Node n) {
        for (Node x = n; x != null; x = x.parent) {
            if (!x.locationClass.isEmpty()) {
                return x.locationClass;
            }
        }
        return "";
    }
}
