package io.creel.namenode.replication;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Keeps a stream of copies under a rate: each {@link #take} waits until the bytes taken before it
 * are paid for at the rate (a pause banks at most one second of credit). One thread uses it.
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

    /** How long {@code bytes} must wait now before they go, in nanoseconds, and books them. */
    long book(long bytes) {
        long now = nanos.getAsLong();
        long start = Math.max(paidUntil, now - 1_000_000_000L);
        paidUntil = start + bytes * 1_000_000_000L / bytesPerSecond;
        return Math.max(0, start - now);
    }

    /** Waits until {@code bytes} more fit the rate. */
    void take(long bytes) {
        long wait = book(bytes);
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
    }
}
