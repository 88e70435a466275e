package io.creel.minicluster.cluster.model;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.StableHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * DESIGN.md's namespace semantics over plain maps: what every call should answer, and the state
 * after it. Paths here are valid by construction (the generator attaches the expected error to
 * the invalid names it makes). Not thread-safe: the sequential phase only.
 */
final class ModelNamespace {
    /** A node of the model. */
    static final class Node {
        final NodeType type;
        final boolean enumerable;
        /** A File's published bytes, a KeyValue's value. */
        Bytes data = Bytes.EMPTY;
        final TreeMap<String, Node> children = new TreeMap<>();
        /** A File whose write lease a writer holds. */
        boolean leased;

        Node(NodeType type, boolean enumerable) {
            this.type = type;
            this.enumerable = enumerable;
        }
    }

    /** A call's expected failure, thrown while the model works out the answer. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final ErrorCode code;

        Refused(ErrorCode code) {
            super(code.name(), null, false, false);
            this.code = code;
        }
    }

    private final Node root = new Node(NodeType.DIRECTORY, true);
    private final int partitions;

    ModelNamespace(int partitions) {
        this.partitions = partitions;
    }

    static List<String> split(String path) {
        List<String> out = new ArrayList<>();
        for (String c : path.split("/")) {
            if (!c.isEmpty()) {
                out.add(c);
            }
        }
        return out;
    }

    static String join(List<String> components) {
        return components.isEmpty() ? "/" : "/" + String.join("/", components);
    }

    int partitionOf(String path) {
        List<String> c = split(path);
        return c.isEmpty() ? 0 : StableHash.partition(c.get(0), partitions);
    }

    /** The node at {@code path}: NOT_A_CONTAINER when a component below a non-container is asked for, NOT_FOUND when missing. */
    Node resolve(String path) throws Refused {
        Node cur = root;
        for (String c : split(path)) {
            if (!cur.type.isContainer()) {
                throw new Refused(ErrorCode.NOT_A_CONTAINER);
            }
            cur = cur.children.get(c);
            if (cur == null) {
                throw new Refused(ErrorCode.NOT_FOUND);
            }
        }
        return cur;
    }

    /** The node at {@code path} or {@code null}, never refusing. */
    Node find(String path) {
        try {
            return resolve(path);
        } catch (Refused e) {
            return null;
        }
    }

    private Node parentFor(String path, NodeType type) throws Refused {
        List<String> c = split(path);
        Node parent = resolve(join(c.subList(0, c.size() - 1)));
        if (!parent.type.mayContain(type)) {
            throw new Refused(ErrorCode.INVALID_PARENT);
        }
        return parent;
    }

    private static String name(String path) {
        List<String> c = split(path);
        return c.get(c.size() - 1);
    }

    // ------------------------------------------------------------------ namespace calls

    /** Refused create, or {@code null} if it should succeed (space permitting). */
    ErrorCode refuseCreate(String path, NodeType type, String storageClass) {
        try {
            if (split(path).isEmpty()) {
                return ErrorCode.ALREADY_EXISTS;
            }
            if (!storageClass.isEmpty() && !storageClass.equals("dram") && !storageClass.equals("disk")) {
                return ErrorCode.INVALID_ARGUMENT;
            }
            Node parent = parentFor(path, type);
            if (type != NodeType.KEYVALUE && parent.children.containsKey(name(path))) {
                return ErrorCode.ALREADY_EXISTS;
            }
            return null;
        } catch (Refused r) {
            return r.code;
        }
    }

    /** A create succeeded; a KeyValue is not visible until {@link #putValue}. */
    void created(String path, NodeType type, boolean enumerable) {
        if (type == NodeType.KEYVALUE) {
            return;
        }
        Node parent = find(join(split(path).subList(0, split(path).size() - 1)));
        parent.children.put(name(path), new Node(type, type != NodeType.TABLE || enumerable));
    }

    /** A KeyValue's writer committed: the key now has {@code value}. */
    void putValue(String path, Bytes value) {
        Node parent = find(join(split(path).subList(0, split(path).size() - 1)));
        Node kv = new Node(NodeType.KEYVALUE, true);
        kv.data = value;
        parent.children.put(name(path), kv);
    }

    ErrorCode refuseDelete(String path, boolean recursive) {
        try {
            if (split(path).isEmpty()) {
                return ErrorCode.INVALID_ARGUMENT;
            }
            Node n = resolve(path);
            if (n.type.isContainer() && !n.children.isEmpty() && !recursive) {
                return ErrorCode.NOT_EMPTY;
            }
            return null;
        } catch (Refused r) {
            return r.code;
        }
    }

    /** Removes the node and everything below it. */
    void deleted(String path) {
        List<String> c = split(path);
        find(join(c.subList(0, c.size() - 1))).children.remove(c.get(c.size() - 1));
    }

    ErrorCode refuseMove(String source, String target) {
        try {
            List<String> s = split(source);
            List<String> t = split(target);
            if (s.isEmpty() || t.isEmpty()) {
                return ErrorCode.UNSUPPORTED;
            }
            if (partitionOf(source) != partitionOf(target)) {
                return ErrorCode.UNSUPPORTED;
            }
            Node n = resolve(source);
            if (s.equals(t)) {
                return ErrorCode.ALREADY_EXISTS;
            }
            if (n.type.isContainer() && t.size() > s.size() && t.subList(0, s.size()).equals(s)) {
                return ErrorCode.UNSUPPORTED;
            }
            Node parent = parentFor(target, n.type);
            if (parent.children.containsKey(name(target))) {
                return ErrorCode.ALREADY_EXISTS;
            }
            return null;
        } catch (Refused r) {
            return r.code;
        }
    }

    void moved(String source, String target) {
        List<String> s = split(source);
        Node n = find(join(s.subList(0, s.size() - 1))).children.remove(s.get(s.size() - 1));
        List<String> t = split(target);
        find(join(t.subList(0, t.size() - 1))).children.put(t.get(t.size() - 1), n);
    }

    /** The listing as sorted "name:Type" strings, or the refusal. */
    Outcome list(String path) {
        try {
            Node n = resolve(path);
            if (!n.type.isContainer()) {
                return Outcome.fail(ErrorCode.NOT_A_CONTAINER);
            }
            if (!n.enumerable) {
                return Outcome.fail(ErrorCode.INVALID_ARGUMENT);
            }
            return Outcome.ok(listing(n));
        } catch (Refused r) {
            return Outcome.fail(r.code);
        }
    }

    static List<String> listing(Node container) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Node> e : container.children.entrySet()) {
            out.add(e.getKey() + ":" + e.getValue().type.displayName());
        }
        out.sort(null); // as the runner sorts what the store lists
        return out;
    }

    /** Bytes {@code [offset, offset + length)} of a File or value, clipped to its length ({@code -1} past the end). */
    Outcome read(String path, long offset, int length) {
        try {
            Node n = resolve(path);
            if (n.type != NodeType.FILE && n.type != NodeType.KEYVALUE) {
                return Outcome.fail(ErrorCode.INVALID_ARGUMENT);
            }
            if (length == 0) {
                return Outcome.ok(Bytes.EMPTY);
            }
            if (offset >= n.data.length()) {
                return Outcome.ok(-1);
            }
            return Outcome.ok(n.data.range(offset, (int) Math.min(length, n.data.length() - offset)));
        } catch (Refused r) {
            return Outcome.fail(r.code);
        }
    }

    Outcome getValue(String path) {
        try {
            Node n = resolve(path);
            return n.type == NodeType.KEYVALUE ? Outcome.ok(n.data) : Outcome.fail(ErrorCode.INVALID_ARGUMENT);
        } catch (Refused r) {
            return Outcome.fail(r.code);
        }
    }

    ErrorCode refuseOpenForAppend(String path) {
        try {
            Node n = resolve(path);
            if (n.type != NodeType.FILE) {
                return ErrorCode.INVALID_ARGUMENT;
            }
            return n.leased ? ErrorCode.LEASE_CONFLICT : null;
        } catch (Refused r) {
            return r.code;
        }
    }

    /** A Bag's bytes in the order of {@code names} (its listing), or the refusal. */
    Outcome bag(String path, List<String> names) {
        try {
            Node n = resolve(path);
            if (n.type != NodeType.BAG) {
                return Outcome.fail(ErrorCode.INVALID_ARGUMENT);
            }
            Bytes all = Bytes.EMPTY;
            for (String name : names) {
                Node f = n.children.get(name);
                all = all.concat(f == null ? Bytes.EMPTY : f.data);
            }
            return Outcome.ok(all);
        } catch (Refused r) {
            return Outcome.fail(r.code);
        }
    }

    // ------------------------------------------------------------------ the generator's view

    /** Every node's path, the root first, depth-first in name order. */
    List<String> paths() {
        List<String> out = new ArrayList<>();
        walk(root, List.of(), out);
        return out;
    }

    private static void walk(Node n, List<String> at, List<String> out) {
        out.add(join(at));
        for (Map.Entry<String, Node> e : n.children.entrySet()) {
            List<String> child = new ArrayList<>(at);
            child.add(e.getKey());
            walk(e.getValue(), child, out);
        }
    }

    /** Paths of nodes of {@code type}. */
    List<String> pathsOf(NodeType type) {
        List<String> out = new ArrayList<>();
        for (String p : paths()) {
            if (find(p).type == type) {
                out.add(p);
            }
        }
        return out;
    }
}
