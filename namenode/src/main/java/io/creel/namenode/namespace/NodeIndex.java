package io.creel.namenode.namespace;

import java.util.function.Predicate;

/**
 * Every node by id: an open-addressing table of nodes keyed by {@link Node#id} (linear probing,
 * backward-shift deletion), with no boxed keys and no entry objects. Guarded by the namespace lock.
 */
final class NodeIndex {
    private static final int FIRST_CAPACITY = 16;

    private Node[] table = new Node[FIRST_CAPACITY];
    private int size;

    private static int slotOf(long id, int mask) {
        long z = id * 0x9e3779b97f4a7c15L;
        return (int) (z ^ (z >>> 32)) & mask;
    }

    int size() {
        return size;
    }

    Node get(long id) {
        Node[] t = table;
        int mask = t.length - 1;
        for (int i = slotOf(id, mask); ; i = (i + 1) & mask) {
            Node n = t[i];
            if (n == null || n.id == id) {
                return n;
            }
        }
    }

    /** Adds {@code n}, replacing any node with its id. */
    void put(Node n) {
        int mask = table.length - 1;
        int i = slotOf(n.id, mask);
        for (; table[i] != null; i = (i + 1) & mask) {
            if (table[i].id == n.id) {
                table[i] = n;
                return;
            }
        }
        table[i] = n;
        if (++size * 4 > table.length * 3) {
            resize(table.length * 2);
        }
    }

    /** Removes the node with {@code id}, if any. */
    void remove(long id) {
        Node[] t = table;
        int mask = t.length - 1;
        int i = slotOf(id, mask);
        while (true) {
            if (t[i] == null) {
                return;
            }
            if (t[i].id == id) {
                break;
            }
            i = (i + 1) & mask;
        }
        int gap = i;
        for (int j = (gap + 1) & mask; t[j] != null; j = (j + 1) & mask) {
            int home = slotOf(t[j].id, mask);
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                t[gap] = t[j];
                gap = j;
            }
        }
        t[gap] = null;
        size--;
        if (table.length > FIRST_CAPACITY && size * 8 < table.length) {
            resize(table.length / 2);
        }
    }

    /** Removes every node {@code drop} matches. */
    void removeIf(Predicate<Node> drop) {
        Node[] old = table;
        int kept = 0;
        for (Node n : old) {
            if (n != null && !drop.test(n)) {
                kept++;
            }
        }
        int capacity = FIRST_CAPACITY;
        while (kept * 4 > capacity * 3) {
            capacity *= 2;
        }
        table = new Node[capacity];
        size = 0;
        for (Node n : old) {
            if (n != null && !drop.test(n)) {
                put(n);
            }
        }
    }

    private void resize(int capacity) {
        Node[] old = table;
        Node[] t = new Node[capacity];
        int mask = capacity - 1;
        for (Node n : old) {
            if (n != null) {
                int i = slotOf(n.id, mask);
                while (t[i] != null) {
                    i = (i + 1) & mask;
                }
                t[i] = n;
            }
        }
        table = t;
    }
}
