package io.creel.namenode.allocation;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;

/**
 * The block accounting of one storage server as this namenode sees it: the regions the server
 * granted to this namenode, a FIFO free list over them (never-used blocks first, then freed blocks in
 * the order their reuse delay ended), and counts of used and retiring blocks. A region can be given
 * back only when none of its blocks is used or retiring. Not thread-safe; the
 * {@link BlockAllocator} guards it.
 */
final class ServerBlocks {
    private final long blockCount;
    private int regionBlocks;
    private final BitSet granted = new BitSet();
    /** Never-handed-out ranges [start, end) of granted regions. */
    private final ArrayDeque<long[]> fresh = new ArrayDeque<>();
    private final ArrayDeque<Long> freed = new ArrayDeque<>();
    /** Blocks known to hold data (restored after a restart) whose regions are not confirmed yet. */
    private final java.util.TreeSet<Long> restored = new java.util.TreeSet<>();
    /** Per region: blocks used or retiring. */
    private int[] busy = new int[0];
    /** Per region: when it last became empty (or was granted). */
    private long[] emptySince = new long[0];
    private long used;
    private long pending;
    private long free;
    /** The server said it has no region left for anyone, at this time (0: not known to be full). */
    private long fullAt;

    ServerBlocks(long blockCount) {
        this.blockCount = blockCount;
    }

    long free() {
        return free;
    }

    long used() {
        return used;
    }

    long pending() {
        return pending;
    }

    long blockCount() {
        return blockCount;
    }

    boolean hasFree() {
        return free > 0;
    }

    int regionBlocks() {
        return regionBlocks;
    }

    int grantedRegions() {
        return granted.cardinality();
    }

    long fullAt() {
        return fullAt;
    }

    void markFull(long now, boolean full) {
        fullAt = full ? Math.max(1, now) : 0;
    }

    /** Learns the server's region size (from any grant or sync reply). */
    void learnRegionSize(int blocksPerRegion) {
        if (regionBlocks == 0) {
            regionBlocks = blocksPerRegion;
            int regions = (int) ((blockCount + regionBlocks - 1) / regionBlocks);
            busy = new int[regions];
            emptySince = new long[regions];
        } else if (regionBlocks != blocksPerRegion) {
            throw new IllegalStateException("region size changed from " + regionBlocks + " to " + blocksPerRegion);
        }
    }

    /**
     * Records a block that holds data this namenode knows of (restored from its log) before the
     * server has confirmed the region: it counts as used, and is taken out of the free list when its
     * region is granted again.
     */
    void restore(long block) {
        if (restored.add(block)) {
            used++;
        }
    }

    /** Regions holding restored blocks not yet confirmed (needs the region size). */
    List<Integer> restoredRegions() {
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        if (regionBlocks > 0) {
            restored.forEach(b -> out.add((int) (b / regionBlocks)));
        }
        return new ArrayList<>(out);
    }

    /** Adds a region the server granted; granting one already held changes nothing. */
    void grant(int region, int blocksPerRegion, long now) {
        learnRegionSize(blocksPerRegion);
        if (region < 0 || region >= busy.length || granted.get(region)) {
            return;
        }
        granted.set(region);
        long start = (long) region * regionBlocks;
        long end = Math.min(blockCount, start + regionBlocks);
        fresh.addLast(new long[] {start, end});
        free += end - start;
        emptySince[region] = now;
        // Restored blocks of this region already hold data: they leave the free list, still counted as used.
        for (Long b : new ArrayList<>(restored.subSet(start, end))) {
            removeFresh(b);
            free--;
            busy[region]++;
            restored.remove(b);
        }
    }

    /** Takes the head of the free list; the caller checked {@link #hasFree}. */
    long take() {
        long block;
        long[] range = fresh.peekFirst();
        if (range != null) {
            // Never-used blocks first, so a freed block waits as long as possible before reuse.
            block = range[0]++;
            if (range[0] >= range[1]) {
                fresh.removeFirst();
            }
        } else {
            block = freed.removeFirst();
        }
        free--;
        used++;
        busy[region(block)]++;
        return block;
    }

    /** Marks a block used outside the free list (restoring state); false if it is not in a granted region. */
    boolean claim(long block) {
        int r = region(block);
        if (!granted.get(r)) {
            return false;
        }
        if (!freed.remove(block) && !removeFresh(block)) {
            return true; // already in use
        }
        free--;
        used++;
        busy[r]++;
        return true;
    }

    /** A used block starts waiting out the reuse delay. */
    void retire() {
        used--;
        pending++;
    }

    /**
     * A retired block's delay ended: it goes to the tail of the free list — unless it was restored
     * from the log and its region has not been granted to this namenode again (its server may never
     * come back, or may have no region size yet): that block is simply forgotten, not this
     * namenode's to hand out.
     */
    void release(long block, long now) {
        pending--;
        if (restored.remove(block)) {
            return;
        }
        freed.addLast(block);
        free++;
        int r = region(block);
        if (--busy[r] == 0) {
            emptySince[r] = now;
        }
    }

    /** Granted regions that have held no used or retiring block for {@code idleMillis}. */
    List<Integer> idleRegions(long now, long idleMillis) {
        List<Integer> out = new ArrayList<>();
        for (int r = granted.nextSetBit(0); r >= 0; r = granted.nextSetBit(r + 1)) {
            if (busy[r] == 0 && now - emptySince[r] >= idleMillis) {
                out.add(r);
            }
        }
        return out;
    }

    /** Every region granted to this namenode. */
    List<Integer> grantedList() {
        List<Integer> out = new ArrayList<>();
        for (int r = granted.nextSetBit(0); r >= 0; r = granted.nextSetBit(r + 1)) {
            out.add(r);
        }
        return out;
    }

    /** Whether {@code region} is granted and holds no used or retiring block. */
    boolean idle(int region) {
        return granted.get(region) && busy[region] == 0;
    }

    /** Regions holding a used or retiring block. */
    List<Integer> busyRegions() {
        List<Integer> out = new ArrayList<>();
        for (int r = granted.nextSetBit(0); r >= 0; r = granted.nextSetBit(r + 1)) {
            if (busy[r] > 0) {
                out.add(r);
            }
        }
        return out;
    }

    /** Gives a region back: its blocks leave the free list. Only for a region with no busy block. */
    void ungrant(int region) {
        if (!granted.get(region) || busy[region] != 0) {
            throw new IllegalStateException("region " + region + " is not granted or still holds blocks");
        }
        granted.clear(region);
        long start = (long) region * regionBlocks;
        long end = Math.min(blockCount, start + regionBlocks);
        for (Iterator<Long> it = freed.iterator(); it.hasNext(); ) {
            long b = it.next();
            if (b >= start && b < end) {
                it.remove();
                free--;
            }
        }
        for (Iterator<long[]> it = fresh.iterator(); it.hasNext(); ) {
            long[] range = it.next();
            if (range[0] >= start && range[1] <= end) {
                free -= range[1] - range[0];
                it.remove();
            }
        }
    }

    private boolean removeFresh(long block) {
        long[] tail = null;
        boolean found = false;
        for (Iterator<long[]> it = fresh.iterator(); it.hasNext(); ) {
            long[] range = it.next();
            if (block >= range[0] && block < range[1]) {
                if (block + 1 < range[1] && block > range[0]) {
                    tail = new long[] {block + 1, range[1]};
                    range[1] = block;
                } else if (block == range[0]) {
                    range[0]++;
                } else {
                    range[1]--;
                }
                if (range[0] >= range[1]) {
                    it.remove();
                }
                found = true;
                break;
            }
        }
        if (tail != null) {
            fresh.addLast(tail);
        }
        return found;
    }

    private int region(long block) {
        return (int) (block / regionBlocks);
    }
}
