package io.creel.namenode.replication;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Keeps a stream of copies under a rate: each {@link #take} of n bytes waits until the bytes taken
 * so far fit the rate since the stream began (a pause does not bank credit beyond one second).
 * One thread uses it.
 */
final class Pacer {
    private final long bytesPerSecond;
    private final LongSupplier nanos;
    /** When the bytes taken so far are paid for. */
    private long paidUntil;

    Pacer(long bytesPerSecond, LongSupplier nanos) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.nanos = nanos;
        this.paidUntil = nanos.getAsLong();
    }

    /** How long {@code bytes} must wait now, in nanoseconds, and books them. */
    long book(long bytes) {
        long now = nanos.getAsLong();
        paidUntil = Math.max(paidUntil, now - 1_000_000_000L) + bytes * 1_000_000_000L / bytesPerSecond;
        return Math.max(0, paidUntil - now);
    }

    /** Waits until {@code bytes} more fit the rate. */
    void take(long bytes) {
        long wait = book(bytes);
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
    }
}
