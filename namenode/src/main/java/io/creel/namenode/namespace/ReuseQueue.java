package io.creel.namenode.namespace;

import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * What must wait out the reuse delay before it happens: a removed node's id stops resolving, a
 * freed record slot becomes reusable. Waiting lets readers that still hold the old id or slot finish
 * safely. Actions run in the order they were queued, lazily, whenever the namespace is next used.
 * Guarded by the namespace lock.
 */
final class ReuseQueue {
    private record Delayed(long readyAt, Runnable action) {
    }

    private final ArrayDeque<Delayed> queue = new ArrayDeque<>();
    private final long delayMillis;
    private final LongSupplier clock;

    ReuseQueue(long delayMillis, LongSupplier clock) {
        this.delayMillis = delayMillis;
        this.clock = clock;
    }

    /** Runs {@code action} once the reuse delay from now has passed. */
    void later(Runnable action) {
        queue.addLast(new Delayed(clock.getAsLong() + delayMillis, action));
    }

    /** Runs every action whose delay has passed. */
    void runDue() {
        long now = clock.getAsLong();
        while (!queue.isEmpty() && queue.peekFirst().readyAt() <= now) {
            queue.removeFirst().action().run();
        }
    }
}
