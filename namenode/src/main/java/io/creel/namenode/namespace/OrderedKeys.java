package io.creel.namenode.namespace;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The keys of an ordered Table in order, beside its {@link ChildTable}: lookups keep using the hash
 * table (one probe), only creates, removals and scans come here. Names compare as UTF-8 bytes,
 * unsigned, which is Unicode code point order. Guarded by the namespace lock, like the node.
 *
 * <p>A two-level sorted array, not a tree of entry objects: the Table's children in leaves of up to
 * {@value #LEAF} nodes, each beside the first 16 bytes of its name as two {@code long}s (names hold
 * no NUL, so zero padding orders a shorter name first), and the leaves in an array with their first
 * keys' prefixes. Finding a name is a binary search over the leaves' prefixes and then within one
 * leaf, on contiguous {@code long}s; a node's name is read only when prefixes tie. In a namespace of
 * millions of nodes each pointer followed is a cache miss: a red-black tree ({@code TreeMap}) took
 * about twenty per insert and cost an ordered create about 2 µs of namenode CPU more than an
 * unordered one, a removal 3 µs (measured with {@code OrderedTableMicrobench}); this takes a few.
 * A key costs 20 bytes in a full leaf, about 28 in leaves filled by random inserts (leaves split in
 * halves and are merged below a quarter), against about 40 for a {@code TreeMap} entry.
 */
final class OrderedKeys {
    /** Nodes per leaf: a leaf insert moves at most this many references and prefixes. */
    static final int LEAF = 128;

    private static final class Leaf {
        final Node[] nodes = new Node[LEAF];
        /** Two per node: bytes 0-7 and 8-15 of its name. */
        final long[] prefixes = new long[2 * LEAF];
        int count;
    }

    private Leaf[] leaves = {new Leaf()};
    /** {@code firsts[2i], firsts[2i + 1]} are the prefixes of leaf {@code i}'s first node (leaf 0's are never read). */
    private long[] firsts = new long[2];
    private int leafCount = 1;
    private int size;

    /** Bytes {@code from} to {@code from + 7} of {@code name}, big-endian, zero padded: unsigned order is the names' order. */
    static long prefix(byte[] name, int from) {
        long p = 0;
        for (int i = from; i < from + 8; i++) {
            p = (p << 8) | (i < name.length ? name[i] & 0xff : 0);
        }
        return p;
    }

    /** Compares two names by their prefixes only: 0 when those tie (then {@link #compareRest} decides). */
    private static int comparePrefixes(long a0, long a1, long b0, long b1) {
        int c = Long.compareUnsigned(a0, b0);
        return c != 0 ? c : Long.compareUnsigned(a1, b1);
    }

    /**
     * Compares two names whose 16-byte prefixes tie. Only then is a node's name read: passing it
     * to every comparison would load the node and its name, two cache misses, at every step.
     */
    private static int compareRest(byte[] a, byte[] b) {
        return a.length <= 16 && b.length <= 16 ? 0 : Arrays.compareUnsigned(a, b);
    }

    int size() {
        return size;
    }

    /** The leaf that holds {@code name} or would: the last whose first key is not above it (leaf 0 if none). */
    private int leafOf(long p0, long p1, byte[] name) {
        int lo = 1;
        int hi = leafCount - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = comparePrefixes(firsts[2 * mid], firsts[2 * mid + 1], p0, p1);
            if (c == 0) {
                c = compareRest(leaves[mid].nodes[0].name, name);
            }
            if (c <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Where {@code name} is in {@code leaf}: its index, or {@code -(insertion point) - 1}. */
    private static int indexIn(Leaf leaf, long p0, long p1, byte[] name) {
        int lo = 0;
        int hi = leaf.count - 1;
        long[] pre = leaf.prefixes;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = comparePrefixes(pre[2 * mid], pre[2 * mid + 1], p0, p1);
            if (c == 0) {
                c = compareRest(leaf.nodes[mid].name, name);
            }
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -lo - 1;
    }

    /** Puts {@code n} under its name, in place of the node there. */
    void put(Node n) {
        long p0 = prefix(n.name, 0);
        long p1 = prefix(n.name, 8);
        int li = leafOf(p0, p1, n.name);
        Leaf leaf = leaves[li];
        int at = indexIn(leaf, p0, p1, n.name);
        if (at >= 0) {
            leaf.nodes[at] = n;
            return;
        }
        at = -at - 1;
        if (leaf.count == LEAF) {
            Leaf right = split(li);
            if (at > leaf.count) {
                at -= leaf.count;
                leaf = right;
                li++;
            }
        }
        System.arraycopy(leaf.nodes, at, leaf.nodes, at + 1, leaf.count - at);
        System.arraycopy(leaf.prefixes, 2 * at, leaf.prefixes, 2 * at + 2, 2 * (leaf.count - at));
        leaf.nodes[at] = n;
        leaf.prefixes[2 * at] = p0;
        leaf.prefixes[2 * at + 1] = p1;
        leaf.count++;
        size++;
        if (at == 0) {
            firsts[2 * li] = p0;
            firsts[2 * li + 1] = p1;
        }
    }

    /** Moves the upper half of full leaf {@code li} into a new leaf after it; returns that leaf. */
    private Leaf split(int li) {
        Leaf left = leaves[li];
        Leaf right = new Leaf();
        int keep = LEAF / 2;
        right.count = left.count - keep;
        System.arraycopy(left.nodes, keep, right.nodes, 0, right.count);
        System.arraycopy(left.prefixes, 2 * keep, right.prefixes, 0, 2 * right.count);
        Arrays.fill(left.nodes, keep, left.count, null);
        left.count = keep;
        if (leafCount == leaves.length) {
            leaves = Arrays.copyOf(leaves, leafCount * 2);
            firsts = Arrays.copyOf(firsts, leafCount * 4);
        }
        System.arraycopy(leaves, li + 1, leaves, li + 2, leafCount - li - 1);
        System.arraycopy(firsts, 2 * (li + 1), firsts, 2 * (li + 2), 2 * (leafCount - li - 1));
        leaves[li + 1] = right;
        firsts[2 * (li + 1)] = right.prefixes[0];
        firsts[2 * (li + 1) + 1] = right.prefixes[1];
        leafCount++;
        return right;
    }

    /** Takes the node named {@code n.name} out (the caller took {@code n} out of the hash table). */
    void remove(Node n) {
        long p0 = prefix(n.name, 0);
        long p1 = prefix(n.name, 8);
        int li = leafOf(p0, p1, n.name);
        Leaf leaf = leaves[li];
        int at = indexIn(leaf, p0, p1, n.name);
        if (at < 0) {
            return;
        }
        System.arraycopy(leaf.nodes, at + 1, leaf.nodes, at, leaf.count - at - 1);
        System.arraycopy(leaf.prefixes, 2 * at + 2, leaf.prefixes, 2 * at, 2 * (leaf.count - at - 1));
        leaf.nodes[--leaf.count] = null;
        size--;
        if (at == 0 && leaf.count > 0) {
            firsts[2 * li] = leaf.prefixes[0];
            firsts[2 * li + 1] = leaf.prefixes[1];
        }
        if (leaf.count < LEAF / 4 && leafCount > 1) {
            mergeAround(li);
        }
    }

    /** Joins a leaf fallen below a quarter with a neighbour (an empty leaf simply goes). */
    private void mergeAround(int li) {
        int left = li > 0 ? li - 1 : li;
        int right = left + 1;
        Leaf a = leaves[left];
        Leaf b = leaves[right];
        if (a.count + b.count > LEAF * 3 / 4) {
            return; // the neighbour is full enough: moving keys would only be undone by the next inserts
        }
        System.arraycopy(b.nodes, 0, a.nodes, a.count, b.count);
        System.arraycopy(b.prefixes, 0, a.prefixes, 2 * a.count, 2 * b.count);
        a.count += b.count;
        if (a.count > 0) {
            firsts[2 * left] = a.prefixes[0];
            firsts[2 * left + 1] = a.prefixes[1];
        }
        System.arraycopy(leaves, right + 1, leaves, right, leafCount - right - 1);
        System.arraycopy(firsts, 2 * (right + 1), firsts, 2 * right, 2 * (leafCount - right - 1));
        leaves[--leafCount] = null;
    }

    /**
     * The nodes from {@code from} on ({@code after}: from the first name above it), in name order,
     * for use under the namespace lock (the walk sees the structure as it is while it runs).
     */
    Iterator<Node> from(byte[] from, boolean after) {
        long p0 = prefix(from, 0);
        long p1 = prefix(from, 8);
        int li = leafOf(p0, p1, from);
        int at = indexIn(leaves[li], p0, p1, from);
        int start = at >= 0 ? (after ? at + 1 : at) : -at - 1;
        return new Iterator<>() {
            private int leaf = li;
            private int index = start;

            @Override
            public boolean hasNext() {
                while (leaf < leafCount && index >= leaves[leaf].count) {
                    leaf++;
                    index = 0;
                }
                return leaf < leafCount;
            }

            @Override
            public Node next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return leaves[leaf].nodes[index++];
            }
        };
    }
}
