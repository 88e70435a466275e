package io.creel.storage.rdma.inflight;

import io.creel.common.inflight.InFlightSlots;
import java.util.List;

/**
 * The operations one connection has posted to the device, by work request id, bounded by the queue
 * depth: common's {@link InFlightSlots} with ids that say which connection and which use of a slot
 * they belong to. Not thread-safe: its connection guards it.
 *
 * <p>A work request id is {@code connection id (32 bits) | slot (16 bits) | slot generation (16 bits)}:
 * a completion that arrives after its operation was given up on (a stale or flushed completion, or
 * one for an earlier connection whose queue pair number the device reused) matches no live entry and
 * is ignored instead of completing somebody else's operation.
 */
public final class WorkRequestTable {
    private final int connectionId;
    private final InFlightSlots<PendingOperation> slots;
    private final int[] generations;

    public WorkRequestTable(int connectionId, int depth) {
        if (depth < 1 || depth > 1 << 16) {
            throw new IllegalArgumentException("queue depth must be between 1 and 65536, got " + depth);
        }
        this.connectionId = connectionId;
        this.slots = new InFlightSlots<>(depth);
        this.generations = new int[depth];
    }

    /** The connection id carried in the upper half of a work request id. */
    public static int connectionIdOf(long wrId) {
        return (int) (wrId >>> 32);
    }

    /** Takes a slot for the operation; returns its work request id, or -1 when all slots are taken. */
    public long add(PendingOperation op) {
        int slot = slots.add(op);
        if (slot < 0) {
            return -1;
        }
        int generation = generations[slot] = (generations[slot] + 1) & 0xFFFF;
        return ((long) connectionId << 32) | ((long) slot << 16) | generation;
    }

    /** Releases the slot of a work request id; returns its operation, or null when the id is not live. */
    public PendingOperation remove(long wrId) {
        if (connectionIdOf(wrId) != connectionId) {
            return null;
        }
        int slot = (int) (wrId >>> 16) & 0xFFFF;
        int generation = (int) wrId & 0xFFFF;
        if (slots.get(slot) == null || generations[slot] != generation) {
            return null;
        }
        return slots.remove(slot);
    }

    /** Releases every slot and returns their operations. */
    public List<PendingOperation> removeAll() {
        return slots.removeAll();
    }

    /** The first live operation whose deadline passed, or null. */
    public PendingOperation firstExpired(long nowNanos) {
        return slots.firstExpired(nowNanos);
    }

    /** Live operations. */
    public int size() {
        return slots.size();
    }

    /** The number of slots. */
    public int capacity() {
        return slots.capacity();
    }
}
