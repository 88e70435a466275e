package io.creel.namenode.records;

import java.util.BitSet;

/**
 * The record slots of one enumerable container: each child holds one; a new child takes the lowest
 * reusable slot. A freed slot becomes reusable only when {@link #release} is called after the reuse
 * delay, so a listing in progress never sees a slot change owner under it. Not thread-safe.
 */
public final class SlotTable {
    private final BitSet used = new BitSet();
    private final BitSet reusable = new BitSet();
    /** Slots below this have been handed out at least once. */
    private int highWater;

    /** Takes the lowest reusable slot, or a new one above all others. */
    public int take() {
        int s = reusable.nextSetBit(0);
        if (s >= 0) {
            reusable.clear(s);
        } else {
            s = highWater++;
        }
        used.set(s);
        return s;
    }

    /** The slot {@link #take} would return now, without taking it. */
    public int peek() {
        int s = reusable.nextSetBit(0);
        return s >= 0 ? s : highWater;
    }

    /** A slot's child is gone; the slot waits for {@link #release}. */
    public void free(int slot) {
        used.clear(slot);
    }

    /** The slot's reuse delay ended. */
    public void release(int slot) {
        if (!used.get(slot) && slot < highWater) {
            reusable.set(slot);
        }
    }

    /** Gives back a slot taken but never written (its record write was never issued). */
    public void untake(int slot) {
        used.clear(slot);
        reusable.set(slot);
    }

    /** Restart from a namenode log: {@code slot} is in use; free slots below it are reusable. */
    public void restoreUsed(int slot) {
        if (slot >= highWater) {
            reusable.set(highWater, slot);
            highWater = slot + 1;
        }
        reusable.clear(slot);
        used.set(slot);
    }

    /** How many slots have ever been handed out: every slot in use or waiting for reuse is below this. */
    public int handedOut() {
        return highWater;
    }

    /** Highest slot in use, or -1. */
    public int highestUsed() {
        return used.length() - 1;
    }

    /** Slots in use. */
    public int usedCount() {
        return used.cardinality();
    }
}
