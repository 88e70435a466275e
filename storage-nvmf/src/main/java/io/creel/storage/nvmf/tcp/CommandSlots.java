package io.creel.storage.nvmf.tcp;

import java.util.function.Consumer;

/**
 * The commands in flight on a queue pair, one {@link CommandSlot} per command identifier (CID
 * 0..depth-1): free CIDs are taken most recently freed first, a response is matched to its slot by
 * CID, and the sweep finds a command past its deadline. Confined to the queue's event loop.
 */
final class CommandSlots {
    private final CommandSlot[] slots;
    private final int[] freeCids;
    private int freeCount;

    CommandSlots(int depth) {
        this.slots = new CommandSlot[depth];
        this.freeCids = new int[depth];
        for (int i = 0; i < depth; i++) {
            slots[i] = new CommandSlot(i);
            freeCids[i] = depth - 1 - i;
        }
        this.freeCount = depth;
    }

    int depth() {
        return slots.length;
    }

    /** Whether a CID is free. */
    boolean hasFree() {
        return freeCount > 0;
    }

    /** A free slot (the caller begins a command in it); only when {@link #hasFree()}. */
    CommandSlot take() {
        return slots[freeCids[--freeCount]];
    }

    /** Makes the (cleared) slot's CID free again. */
    void release(CommandSlot slot) {
        freeCids[freeCount++] = slot.cid;
    }

    /** The slot of {@code cid} if a command is outstanding on it, else null. */
    CommandSlot active(int cid) {
        return cid < slots.length && slots[cid].active() ? slots[cid] : null;
    }

    /** The first outstanding command whose deadline is before {@code nowNanos}, or null. */
    CommandSlot firstExpired(long nowNanos) {
        for (CommandSlot slot : slots) {
            if (slot.active() && nowNanos - slot.deadlineNanos > 0) {
                return slot;
            }
        }
        return null;
    }

    /** Hands every outstanding command's slot to {@code fail}, in CID order; returns how many. */
    int forEachActive(Consumer<CommandSlot> fail) {
        int n = 0;
        for (CommandSlot slot : slots) {
            if (slot.active()) {
                fail.accept(slot);
                n++;
            }
        }
        return n;
    }
}
