package io.creel.client.block;

import io.creel.common.protocol.BlockLocation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Block locations of all open nodes, least recently used evicted first, bounded by
 * {@code creel.client.block.cache.size}. Entries are futures, so concurrent readers of the same
 * block share one MAP request (or one LOCATE of a run of blocks), and a lookup issued ahead of time
 * (prefetch) is found by the transfer that needs it. A failed lookup is not cached.
 */
public final class BlockLocationCache {
    private final int capacity;
    private final Map<BlockKey, CompletableFuture<BlockLocation>> entries;
    private long hits;
    private long misses;

    public BlockLocationCache(int capacity) {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(256, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<BlockKey, CompletableFuture<BlockLocation>> eldest) {
                return size() > BlockLocationCache.this.capacity;
            }
        };
    }

    /** The cached location of {@code key}, or the one {@code loader} fetches (and which is then cached). */
    public CompletableFuture<BlockLocation> get(BlockKey key, Supplier<CompletableFuture<BlockLocation>> loader) {
        CompletableFuture<BlockLocation> f;
        synchronized (this) {
            f = entries.get(key);
            if (f != null && !f.isCompletedExceptionally()) {
                hits++;
                return f;
            }
            misses++;
            f = new CompletableFuture<>();
            entries.put(key, f);
        }
        settle(key, f, k -> loader.get());
        return f;
    }

    /**
     * The location of {@code first}, loaded together with the blocks after it, up to {@code count}
     * in all, that are neither cached nor loading: {@code run} is asked for that many at once (a
     * LOCATE) and may answer fewer; a block it did not answer for, or all of them if it failed, is
     * loaded alone by {@code single} (a MAP, whose error is then that block's own).
     */
    public CompletableFuture<BlockLocation> getRun(BlockKey first, int count,
                                                   IntFunction<CompletableFuture<List<BlockLocation>>> run,
                                                   Function<BlockKey, CompletableFuture<BlockLocation>> single) {
        List<CompletableFuture<BlockLocation>> mine = new ArrayList<>();
        synchronized (this) {
            CompletableFuture<BlockLocation> f = entries.get(first);
            if (f != null && !f.isCompletedExceptionally()) {
                hits++;
                return f;
            }
            misses++;
            for (int i = 0; i < count; i++) {
                BlockKey k = new BlockKey(first.partition(), first.nodeId(), first.blockIndex() + i);
                CompletableFuture<BlockLocation> e = entries.get(k);
                if (i > 0 && e != null && !e.isCompletedExceptionally()) {
                    break; // known or loading already: the run stops here
                }
                CompletableFuture<BlockLocation> slot = new CompletableFuture<>();
                entries.put(k, slot);
                mine.add(slot);
            }
        }
        CompletableFuture<List<BlockLocation>> loaded;
        try {
            loaded = run.apply(mine.size());
        } catch (RuntimeException e) {
            loaded = CompletableFuture.failedFuture(e);
        }
        loaded.whenComplete((found, t) -> {
            for (int i = 0; i < mine.size(); i++) {
                BlockKey k = new BlockKey(first.partition(), first.nodeId(), first.blockIndex() + i);
                if (t == null && i < found.size()) {
                    mine.get(i).complete(found.get(i));
                } else {
                    settle(k, mine.get(i), single);
                }
            }
        });
        return mine.get(0);
    }

    /** Completes {@code slot} (the entry of {@code key}) with what {@code single} loads; a failure is not cached. */
    private void settle(BlockKey key, CompletableFuture<BlockLocation> slot,
                        Function<BlockKey, CompletableFuture<BlockLocation>> single) {
        CompletableFuture<BlockLocation> loaded;
        try {
            loaded = single.apply(key);
        } catch (RuntimeException e) {
            loaded = CompletableFuture.failedFuture(e);
        }
        loaded.whenComplete((loc, t) -> {
            if (t != null) {
                synchronized (this) {
                    entries.remove(key, slot);
                }
                slot.completeExceptionally(t);
            } else {
                slot.complete(loc);
            }
        });
    }

    /** Records a location learned another way (the first block carried by create and lookup). */
    public synchronized void put(BlockLocation location, int partition) {
        entries.put(new BlockKey(partition, location.nodeId(), location.blockIndex()),
                CompletableFuture.completedFuture(location));
    }

    /**
     * Forgets {@code key}'s location if it is still {@code stale}, or still has {@code stale} as one
     * of its copies (so a fresher one is kept).
     */
    public synchronized void invalidate(BlockKey key, BlockLocation stale) {
        CompletableFuture<BlockLocation> f = entries.get(key);
        if (f != null && f.isDone() && !f.isCompletedExceptionally()
                && (f.join().equals(stale) || f.join().copies().contains(stale))) {
            entries.remove(key);
        }
    }

    /** The location of {@code key} if it is cached and known (not loading, not failed), else {@code null}. */
    public synchronized BlockLocation peek(BlockKey key) {
        CompletableFuture<BlockLocation> f = entries.get(key);
        return f != null && f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
    }

    /** Forgets {@code key}'s location whatever it is (the block was given back by its node). */
    public synchronized void forget(BlockKey key) {
        entries.remove(key);
    }

    /** The most locations kept. */
    public int capacity() {
        return capacity;
    }

    public synchronized int size() {
        return entries.size();
    }

    /** Lookups answered from the cache (including ones still in flight). */
    public synchronized long hits() {
        return hits;
    }

    /** Lookups that had to ask the namenode. */
    public synchronized long misses() {
        return misses;
    }
}
