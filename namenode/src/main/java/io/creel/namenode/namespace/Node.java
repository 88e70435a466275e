package io.creel.namenode.namespace;

import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.records.SlotTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One node of the namespace; guarded by the {@link Namespace} lock. */
final class Node {
    enum State {
        /** Reachable by path. */
        LIVE,
        /** A KeyValue version not yet committed: reachable only by id, by its writer. */
        PENDING,
        /** Removed or replaced: resolvable by id until the reuse delay ends. */
        RETIRED
    }

    final long id;
    final NodeType type;
    String name;
    /** The container; for a pending KeyValue version, the Table it will be committed into. */
    Node parent;
    final String storageClass;
    final String locationClass;
    final boolean enumerable;
    long length;
    long modifiedMillis;
    final List<AllocatedBlock> blocks = new ArrayList<>();
    /** Children by name (containers only); for a Table, the committed version of each key. */
    final Map<String, Node> children;
    /** Uncommitted KeyValue versions (Tables only). */
    final Set<Node> pendingVersions;
    /** Record slots of the children (enumerable containers only). */
    final SlotTable slots;
    /**
     * Bytes of this container's records that are safe to read: the end of the highest record whose
     * write has completed. A block of records exists on its server only once a record write has
     * claimed it there, so a slot being written is left out of the length until its write is done;
     * otherwise a listing could reach a block the server does not yet hold for this container.
     * Written when record writes complete, outside the namespace lock.
     */
    final java.util.concurrent.atomic.AtomicLong recordsWritten = new java.util.concurrent.atomic.AtomicLong();
    /** This node's slot in its parent's records, or -1. */
    int slot = -1;
    long lease;
    Object leaseOwner;
    /**
     * Servers the current lease holder could not reach (ids): its blocks go elsewhere. Not logged;
     * usually empty, so shared until something is added.
     */
    Set<Integer> unreachable = Set.of();
    State state;

    Node(long id, NodeType type, String name, Node parent, String storageClass, String locationClass,
         boolean enumerable, long now, State state) {
        this.id = id;
        this.type = type;
        this.name = name;
        this.parent = parent;
        this.storageClass = storageClass;
        this.locationClass = locationClass;
        this.enumerable = enumerable;
        this.modifiedMillis = now;
        this.state = state;
        this.children = type.isContainer() ? new HashMap<>() : Map.of();
        this.pendingVersions = type == NodeType.TABLE ? new HashSet<>() : Set.of();
        this.slots = type.isContainer() && enumerable ? new SlotTable() : null;
    }

    /**
     * Readable bytes: the committed length, or for a container its record array up to the highest
     * slot in use, but not beyond the records written so far.
     */
    long visibleLength() {
        if (type.isContainer()) {
            return slots == null ? 0 : Math.min((long) (slots.highestUsed() + 1)
                    * io.creel.common.namespace.DirectoryRecord.SIZE, recordsWritten.get());
        }
        return length;
    }

    /** Record {@code slot} of this container has been written. */
    void recordWritten(int slot) {
        recordsWritten.accumulateAndGet((long) (slot + 1) * io.creel.common.namespace.DirectoryRecord.SIZE, Math::max);
    }

    NodeInfo info() {
        return new NodeInfo(id, type, visibleLength(), storageClass, locationClass, enumerable, modifiedMillis,
                lease != 0);
    }

    /** The node's path, for messages. */
    String path() {
        if (parent == null) {
            return "/";
        }
        String p = parent.path();
        return p.equals("/") ? "/" + name : p + "/" + name;
    }
}
