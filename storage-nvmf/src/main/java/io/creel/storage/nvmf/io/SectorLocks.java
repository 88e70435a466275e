package io.creel.storage.nvmf.io;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Asynchronous exclusive locks on individual sectors, for read-modify-write of partial sectors: two
 * writes to different bytes of one sector must not both read the old sector and each write back
 * their own patch over the other's. Holders are served in the order they asked; taking several
 * sectors happens in one step, so two holders can never wait for each other.
 */
final class SectorLocks {
    private final Map<Long, CompletableFuture<Void>> last = new HashMap<>();

    /**
     * Takes the locks of {@code sectors}; the future completes, with the action that releases them, once
     * every earlier holder of any of them has released. The release must always run.
     */
    CompletableFuture<Runnable> acquire(long... sectors) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<?>[] before = new CompletableFuture<?>[sectors.length];
        int n = 0;
        synchronized (this) {
            for (long s : sectors) {
                CompletableFuture<Void> prev = last.put(s, mine);
                if (prev != null) {
                    before[n++] = prev;
                }
            }
        }
        Runnable release = () -> {
            synchronized (this) {
                for (long s : sectors) {
                    last.remove(s, mine);
                }
            }
            mine.complete(null);
        };
        if (n == 0) {
            return CompletableFuture.completedFuture(release);
        }
        CompletableFuture<?>[] wait = new CompletableFuture<?>[n];
        System.arraycopy(before, 0, wait, 0, n);
        return CompletableFuture.allOf(wait).thenApply(v -> release);
    }

    /** Sectors currently locked or waited for (for tests: zero when idle). */
    synchronized int size() {
        return last.size();
    }
}
