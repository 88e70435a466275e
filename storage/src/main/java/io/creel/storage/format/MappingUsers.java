package io.creel.storage.format;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the operations that are using some mappings, and releases the mappings once they are
 * closed and the last such operation has left — never under a running operation.
 *
 * <p>An explicit unmap ({@link MappedRegion#close}) under a thread that is still copying from or to
 * the mapping is not an exception but a SIGSEGV that takes the whole JVM down. Leaving the unmap to
 * the garbage collector would be safe too, but a client that maps a DRAM server's region would then
 * keep the server's memory (a tmpfs file deleted by a restarted server) for as long as no collection
 * happens to find the buffers: gigabytes held for an unbounded time. A count of users costs two
 * atomic operations per transfer and unmaps as soon as it is safe.
 *
 * <p>Usage: an operation calls {@link #enter} and, only if that returned true, touches the mappings
 * and calls {@link #exit} in a {@code finally}. {@link #close} refuses new operations at once; the
 * release runs on the thread that closes (when nothing is running) or on the thread of the last
 * operation to leave. It runs exactly once.
 */
public final class MappingUsers {
    /** Set in {@link #state} once closed; the remaining bits count the operations inside. */
    private static final int CLOSED = 1 << 30;

    private final AtomicInteger state = new AtomicInteger();
    private final Runnable release;

    /** @param release what unmaps the mappings (and closes what else they need); runs exactly once */
    public MappingUsers(Runnable release) {
        this.release = release;
    }

    /**
     * Enters an operation that may touch the mappings; false once {@link #close} was called (the
     * caller must then fail without touching them).
     */
    public boolean enter() {
        while (true) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                return false;
            }
            if (s + 1 >= CLOSED) {
                throw new IllegalStateException("more than " + (CLOSED - 1) + " operations inside one mapping");
            }
            if (state.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    /** Leaves an operation that {@link #enter} let in; the last to leave after a close releases. */
    public void exit() {
        int s = state.decrementAndGet();
        if (s == CLOSED) {
            release.run();
        } else if (s < 0) {
            throw new IllegalStateException("exit without enter");
        }
    }

    /**
     * Refuses new operations; releases the mappings now if none is running, else when the last one
     * leaves. Idempotent.
     */
    public void close() {
        while (true) {
            int s = state.get();
            if ((s & CLOSED) != 0) {
                return;
            }
            if (state.compareAndSet(s, s | CLOSED)) {
                if (s == 0) {
                    release.run();
                }
                return;
            }
        }
    }

    /** Whether {@link #close} was called (the release may still wait for running operations). */
    public boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }

    /** Operations inside now (for tests and diagnostics). */
    public int inside() {
        return state.get() & ~CLOSED;
    }
}
