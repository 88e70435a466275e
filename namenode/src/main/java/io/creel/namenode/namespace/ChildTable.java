package io.creel.namenode.namespace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The children of one container by name: an open-addressing table of nodes (linear probing,
 * backward-shift deletion) that compares names as UTF-8 bytes against the node's own name. No
 * entry objects and no keys besides the nodes: about two references per child, and each slot's name
 * hash in an array beside them, so a probe reads the node (somewhere in a heap of millions, a cache
 * miss) only when its hash matches: at 10 M nodes the nodes passed over on a probe run cost lookups
 * most of their time.
 */
final class ChildTable {
    private static final int FIRST_CAPACITY = 4;

    private Node[] table = new Node[FIRST_CAPACITY];
    /** {@code hashes[i]} is {@code table[i].nameHash} where {@code table[i]} is not null. */
    private int[] hashes = new int[FIRST_CAPACITY];
    private int size;

    /** The hash of name bytes {@code [from, to)} (FNV-1a, then mixed so the low bits spread). */
    static int hash(byte[] b, int from, int to) {
        int h = 0x811c9dc5;
        for (int i = from; i < to; i++) {
            h = (h ^ (b[i] & 0xff)) * 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        return h ^ (h >>> 13);
    }

    int size() {
        return size;
    }

    /** The child named by bytes {@code [from, to)} of {@code name}, whose {@link #hash} is {@code hash}; or {@code null}. */
    Node get(byte[] name, int from, int to, int hash) {
        Node[] t = table;
        int[] h = hashes;
        int mask = t.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            Node n = t[i];
            if (n == null) {
                return null;
            }
            if (h[i] == hash && Arrays.equals(n.name, 0, n.name.length, name, from, to)) {
                return n;
            }
        }
    }

    /** Puts {@code n} under its name, replacing the node there; returns the one replaced, or {@code null}. */
    Node put(Node n) {
        int mask = table.length - 1;
        int i = n.nameHash & mask;
        for (; table[i] != null; i = (i + 1) & mask) {
            Node old = table[i];
            if (hashes[i] == n.nameHash && Arrays.equals(old.name, n.name)) {
                table[i] = n;
                return old;
            }
        }
        table[i] = n;
        hashes[i] = n.nameHash;
        if (++size * 4 > table.length * 3) {
            resize(table.length * 2);
        }
        return null;
    }

    /** Removes {@code n} if it is the node under its name; returns whether it was. */
    boolean remove(Node n) {
        Node[] t = table;
        int mask = t.length - 1;
        int i = n.nameHash & mask;
        while (t[i] != n) {
            if (t[i] == null) {
                return false;
            }
            i = (i + 1) & mask;
        }
        // Backward shift: move later entries of the probe run into the gap, so no tombstones are needed.
        int gap = i;
        int[] h = hashes;
        for (int j = (gap + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            int home = h[j] & mask;
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                t[gap] = t[j];
                h[gap] = h[j];
                gap = j;
            }
        }
        t[gap] = null;
        h[gap] = 0;
        size--;
        if (table.length > FIRST_CAPACITY && size * 8 < table.length) {
            resize(table.length / 2);
        }
        return true;
    }

    /** The children, in no particular order. */
    List<Node> toList() {
        List<Node> out = new ArrayList<>(size);
        for (Node n : table) {
            if (n != null) {
                out.add(n);
            }
        }
        return out;
    }

    private void resize(int capacity) {
        Node[] old = table;
        int[] oldHashes = hashes;
        Node[] t = new Node[capacity];
        int[] h = new int[capacity];
        int mask = capacity - 1;
        for (int k = 0; k < old.length; k++) {
            if (old[k] != null) {
                int i = oldHashes[k] & mask;
                while (t[i] != null) {
                    i = (i + 1) & mask;
                }
                t[i] = old[k];
                h[i] = oldHashes[k];
            }
        }
        table = t;
        hashes = h;
    }
}
