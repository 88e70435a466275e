package io.creel.namenode.namespace;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The keys of an ordered Table in order: a red-black tree of the Table's children by name, beside
 * its {@link ChildTable}. Lookups keep using the hash table (one probe, no comparisons along a tree
 * path); only creates, removals and scans touch the tree. Names compare as UTF-8 bytes, unsigned,
 * which is Unicode code point order. Guarded by the namespace lock, like the rest of the node.
 *
 * <p>A tree entry costs about 40 bytes beside the node (the key is the node's own name array,
 * which a node never changes in place: a move takes the node out under its old name first).
 */
final class OrderedKeys {
    private final TreeMap<byte[], Node> byName = new TreeMap<>(Arrays::compareUnsigned);

    /** Puts {@code n} under its name, in place of the node there. */
    void put(Node n) {
        byName.put(n.name, n);
    }

    /** Takes {@code n}'s name out (the caller took {@code n} out of the hash table: it was the node there). */
    void remove(Node n) {
        byName.remove(n.name);
    }

    int size() {
        return byName.size();
    }

    /** The children from {@code from} on (all of them for an empty {@code from}), in name order. */
    Iterator<Node> from(byte[] from, boolean after) {
        NavigableMap<byte[], Node> tail = from.length == 0 && !after ? byName : byName.tailMap(from, !after);
        return tail.values().iterator();
    }
}
