package io.creel.common.inflight;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Operations in flight whose id is a slot of a fixed depth (an NVMe command identifier, the slot
 * bits of an RDMA work request id): an operation takes a free slot (initially the lowest, then the
 * one freed most recently), its completion takes it out by slot, a check finds one past its
 * deadline, and a close takes out all of them. {@link InFlightTable} is the same for ids a
 * connection chooses itself. Not thread-safe: the connection that owns it confines or guards it.
 *
 * @param <V> the operation; it knows its deadline
 */
public final class InFlightSlots<V extends InFlightTable.Deadlined> {
    private final Object[] slots;
    private final int[] free;
    private int freeCount;

    /** {@code depth} slots, 0..depth-1. */
    public InFlightSlots(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("depth must be at least 1, got " + depth);
        }
        this.slots = new Object[depth];
        this.free = new int[depth];
        for (int i = 0; i < depth; i++) {
            free[i] = depth - 1 - i;
        }
        this.freeCount = depth;
    }

    /** Whether a slot is free. */
    public boolean hasFree() {
        return freeCount > 0;
    }

    /** Puts {@code value} in a free slot; returns the slot, or -1 when all are taken. */
    public int add(V value) {
        return add(slot -> value);
    }

    /** Puts what {@code make} makes for a free slot there (for values tied to their slot); returns the slot, or -1. */
    public int add(IntFunction<? extends V> make) {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[--freeCount];
        slots[slot] = make.apply(slot);
        return slot;
    }

    /** The operation in {@code slot}, left in place; null when the slot is free or out of range. */
    @SuppressWarnings("unchecked")
    public V get(int slot) {
        return slot >= 0 && slot < slots.length ? (V) slots[slot] : null;
    }

    /** Takes the operation out of {@code slot} and frees the slot; null when there is none. */
    public V remove(int slot) {
        V value = get(slot);
        if (value != null) {
            slots[slot] = null;
            free[freeCount++] = slot;
        }
        return value;
    }

    /** The first operation, by slot, whose deadline has passed ({@code nowNanos} after it), or null. */
    @SuppressWarnings("unchecked")
    public V firstExpired(long nowNanos) {
        for (Object o : slots) {
            if (o != null && nowNanos - ((V) o).deadlineNanos() > 0) {
                return (V) o;
            }
        }
        return null;
    }

    /** Takes every operation out, by slot, and frees all slots. */
    @SuppressWarnings("unchecked")
    public List<V> removeAll() {
        List<V> all = new ArrayList<>(size());
        for (int slot = 0; slot < slots.length; slot++) {
            if (slots[slot] != null) {
                all.add((V) slots[slot]);
                slots[slot] = null;
                free[freeCount++] = slot;
            }
        }
        return all;
    }

    /** Operations in flight. */
    public int size() {
        return slots.length - freeCount;
    }

    /** The number of slots. */
    public int capacity() {
        return slots.length;
    }
}
