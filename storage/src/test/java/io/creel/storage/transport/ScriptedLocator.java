package io.creel.storage.transport;

import io.creel.common.protocol.BlockLocation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A locator that answers with a first location and then, on each relocation, the next of some
 * fresher ones (none left: nothing fresher). It records what it was asked and told.
 */
final class ScriptedLocator implements BlockLocator {
    private final BlockLocation first;
    private final Deque<BlockLocation> fresher;
    private final List<BlockLocation> staleOnes = new ArrayList<>();
    private final List<BlockLocation> started = new ArrayList<>();
    private int locates;

    ScriptedLocator(BlockLocation first, BlockLocation... fresher) {
        this.first = first;
        this.fresher = new ArrayDeque<>(List.of(fresher));
    }

    @Override
    public synchronized CompletableFuture<BlockLocation> locate() {
        locates++;
        return CompletableFuture.completedFuture(first);
    }

    @Override
    public synchronized CompletableFuture<BlockLocation> relocate(BlockLocation stale) {
        staleOnes.add(stale);
        BlockLocation next = fresher.poll();
        return next == null ? null : CompletableFuture.completedFuture(next);
    }

    @Override
    public synchronized void transferStarted(BlockLocation at) {
        started.add(at);
    }

    synchronized int locates() {
        return locates;
    }

    /** The locations reported stale, in order. */
    synchronized List<BlockLocation> relocations() {
        return List.copyOf(staleOnes);
    }

    /** The locations reported as transfers under way, in order. */
    synchronized List<BlockLocation> started() {
        return List.copyOf(started);
    }
}
