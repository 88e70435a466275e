package io.creel.namenode.namespace;

import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.namenode.records.SlotTable;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * A Directory, Table or Bag: its children by name, the record slots of an enumerable one, and a
 * Table's uncommitted KeyValue versions. Each of these is created with the first thing it holds:
 * most containers in a large namespace are leaves.
 */
final class Container extends Node {
    private static final AtomicLongFieldUpdater<Container> RECORDS_WRITTEN =
            AtomicLongFieldUpdater.newUpdater(Container.class, "recordsWritten");

    final boolean enumerable;
    /** Children by name (for a Table, the committed version of each key); {@code null} until the first. */
    private ChildTable children;
    /** The same children in name order, for an ordered Table only; {@code null} for every other container. */
    private OrderedKeys orderedKeys;
    /** Record slots of the children (enumerable containers); {@code null} until the first. */
    private SlotTable slots;
    /** Uncommitted KeyValue versions (Tables); {@code null} until the first. */
    private Set<DataNode> pendingVersions;
    /**
     * Bytes of this container's records that are safe to read: the end of the highest record whose
     * write has completed. A block of records exists on its server only once a record write has
     * claimed it there, so a slot being written is left out of the length until its write is done;
     * otherwise a listing could reach a block the server does not yet hold for this container.
     * Written when record writes complete, outside the namespace lock.
     */
    private volatile long recordsWritten;

    Container(long id, NodeType type, byte[] name, Container parent, Placement placement, boolean enumerable,
              long now, State state) {
        super(id, type, name, parent, placement, now, state);
        this.enumerable = enumerable;
    }

    @Override
    long visibleLength() {
        return slots == null ? 0 : Math.min((long) (slots.highestUsed() + 1) * DirectoryRecord.SIZE, recordsWritten);
    }

    @Override
    boolean enumerable() {
        return enumerable;
    }

    @Override
    boolean leased() {
        return false;
    }

    /** Record {@code slot} of this container has been written. */
    void recordWritten(int slot) {
        RECORDS_WRITTEN.accumulateAndGet(this, (long) (slot + 1) * DirectoryRecord.SIZE, Math::max);
    }

    // ------------------------------------------------------------------ children

    /** The child named by bytes {@code [from, to)} of {@code bytes} with that {@code hash}, or {@code null}. */
    Node child(byte[] bytes, int from, int to, int hash) {
        return children == null ? null : children.get(bytes, from, to, hash);
    }

    /** The child named {@code name}, or {@code null}. */
    Node child(byte[] name) {
        return child(name, 0, name.length, ChildTable.hash(name, 0, name.length));
    }

    /** Makes {@code n} the child under its name, replacing any other; returns the one replaced. */
    Node putChild(Node n) {
        if (children == null) {
            children = new ChildTable();
        }
        Node old = children.put(n);
        if (orderedKeys != null) {
            orderedKeys.put(n);
        }
        return old;
    }

    /** Takes {@code n} out of the children if it is the child under its name; returns whether it was. */
    boolean removeChild(Node n) {
        boolean removed = children != null && children.remove(n);
        if (removed && orderedKeys != null) {
            orderedKeys.remove(n);
        }
        return removed;
    }

    /** Makes this Table keep its keys in order from now on (those it has included): an ordered Table. */
    void keepOrder() {
        if (type != NodeType.TABLE) {
            throw new IllegalStateException("only a Table keeps its keys in order, not a " + type.displayName());
        }
        if (orderedKeys == null) {
            orderedKeys = new OrderedKeys();
            childList().forEach(orderedKeys::put);
        }
    }

    /** Whether this is an ordered Table. */
    boolean ordered() {
        return orderedKeys != null;
    }

    /** The keys of an ordered Table, in order; {@code null} for any other container. */
    OrderedKeys orderedKeys() {
        return orderedKeys;
    }

    int childCount() {
        return children == null ? 0 : children.size();
    }

    /** The children, as a list taken now. */
    List<Node> childList() {
        return children == null ? List.of() : children.toList();
    }

    // ------------------------------------------------------------------ records

    /** The record slots; {@code null} for a non-enumerable container. */
    SlotTable slots() {
        if (!enumerable) {
            return null;
        }
        if (slots == null) {
            slots = new SlotTable();
        }
        return slots;
    }

    // ------------------------------------------------------------------ pending versions

    void addPending(DataNode v) {
        if (pendingVersions == null) {
            pendingVersions = new HashSet<>(4);
        }
        pendingVersions.add(v);
    }

    boolean removePending(DataNode v) {
        if (pendingVersions == null || !pendingVersions.remove(v)) {
            return false;
        }
        if (pendingVersions.isEmpty()) {
            pendingVersions = null;
        }
        return true;
    }

    /** The uncommitted versions, as a list taken now. */
    List<DataNode> pendingList() {
        return pendingVersions == null ? List.of() : List.copyOf(pendingVersions);
    }
}
