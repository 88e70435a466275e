package io.creel.namenode.allocation;

import java.util.ArrayDeque;

/**
 * The block accounting of one storage server: a FIFO free list (never-used blocks in order, then
 * freed blocks in the order their reuse delay ended), and counts of used and retiring blocks.
 * Not thread-safe; the {@link BlockAllocator} guards it.
 */
final class ServerBlocks {
    private final long blockCount;
    /** Blocks below this have been handed out at least once. */
    private long nextFresh;
    private final ArrayDeque<Long> freed = new ArrayDeque<>();
    private long used;
    private long pending;

    ServerBlocks(long blockCount) {
        this.blockCount = blockCount;
    }

    long free() {
        return blockCount - nextFresh + freed.size();
    }

    long used() {
        return used;
    }

    long pending() {
        return pending;
    }

    boolean hasFree() {
        return nextFresh < blockCount || !freed.isEmpty();
    }

    /** Takes the head of the free list; the caller checked {@link #hasFree}. */
    long take() {
        used++;
        // Never-used blocks first, so a freed block waits as long as possible before reuse.
        if (nextFresh < blockCount) {
            return nextFresh++;
        }
        return freed.removeFirst();
    }

    /** Marks a block in use that was never {@link #take taken} here (a restart restoring its nodes). */
    void markUsed(long block) {
        if (block >= nextFresh) {
            for (long b = nextFresh; b < block; b++) {
                freed.addLast(b);
            }
            nextFresh = block + 1;
        } else if (!freed.remove(block)) {
            return; // already in use
        }
        used++;
    }

    /** A used block starts waiting out the reuse delay. */
    void retire() {
        used--;
        pending++;
    }

    /** A retired block's delay ended: it goes to the tail of the free list. */
    void release(long block) {
        pending--;
        freed.addLast(block);
    }
}
