package io.creel.storage.rdma.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RegisteredMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The client's registered buffers: one registration, made once, cut into {@code count} slots, so no
 * transfer registers memory. A slot is a few words for tags and compare-and-swap results followed by
 * {@code size} bytes of data; a transfer holds one slot from its first operation to its last.
 * When all are taken, transfers wait in order for one, each at most the wait timeout.
 *
 * <p>Ownership: a slot is its holder's until {@link Slot#release()}; the pool closes only after
 * its holders are done (the runtime closes it when the last transport closed).
 */
final class BufferPool implements AutoCloseable {
    /** Bytes before each slot's data: tag words and compare-and-swap results, 8-byte aligned. */
    static final int WORDS = 64;

    private final RegisteredMemory memory;
    private final int size;
    private final int count;
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Slot>> waiters = new ArrayDeque<>();
    private final ScheduledExecutorService timer;
    private final Duration waitTimeout;
    private boolean closed;

    /**
     * Registers {@code count} slots of {@code size} data bytes on {@code device}.
     *
     * @throws RdmaException when the device refuses the registration (pinned-memory limit: it says so)
     */
    BufferPool(RdmaDevice device, int size, int count, ScheduledExecutorService timer, Duration waitTimeout)
            throws RdmaException {
        long total = (long) (size + WORDS) * count;
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(count + " registered buffers of " + size + " bytes exceed 2 GiB");
        }
        this.size = size;
        this.count = count;
        this.timer = timer;
        this.waitTimeout = waitTimeout;
        this.memory = device.register(ByteBuffer.allocateDirect((int) total).order(ByteOrder.nativeOrder()),
                MemoryAccess.LOCAL);
        for (int i = 0; i < count; i++) {
            free.add(new Slot(this, i * (size + WORDS)));
        }
    }

    /** Data bytes per slot. */
    int size() {
        return size;
    }

    /** Slots free now. */
    synchronized int available() {
        return free.size();
    }

    /** Transfers waiting for a slot. */
    synchronized int waiting() {
        return waiters.size();
    }

    /**
     * A slot: at once if one is free, else when one is released; fails with TIMEOUT after the wait
     * timeout and with UNAVAILABLE once the pool is closed.
     */
    CompletableFuture<Slot> acquire() {
        CompletableFuture<Slot> f = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE,
                        "the RDMA client's buffers are closed"));
            }
            Slot s = free.poll();
            if (s != null) {
                s.held = true;
                return CompletableFuture.completedFuture(s);
            }
            waiters.addLast(f);
        }
        long millis = waitTimeout.toMillis();
        timer.schedule(() -> {
            boolean removed;
            synchronized (this) {
                removed = waiters.remove(f);
            }
            if (removed) {
                f.completeExceptionally(new CreelException(ErrorCode.TIMEOUT, "no registered RDMA buffer became free "
                        + "within " + millis + " ms (all " + count + " held by transfers in flight)"));
            }
        }, millis, TimeUnit.MILLISECONDS);
        return f;
    }

    private void release(Slot s) {
        CompletableFuture<Slot> next;
        synchronized (this) {
            if (!s.held) {
                throw new IllegalStateException("an RDMA buffer was released twice");
            }
            next = waiters.poll();
            if (next == null) {
                s.held = false;
                free.push(s); // the most recently used slot first: warm in cache
                return;
            }
        }
        next.complete(s); // handed over still held; outside the lock, the waiter's callbacks run here
    }

    /** Deregisters the memory; waiting transfers fail. */
    @Override
    public void close() {
        List<CompletableFuture<Slot>> failed;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            failed = List.copyOf(waiters);
            waiters.clear();
        }
        for (CompletableFuture<Slot> f : failed) {
            f.completeExceptionally(new CreelException(ErrorCode.UNAVAILABLE, "the RDMA client's buffers are closed"));
        }
        try {
            memory.close();
        } catch (RdmaException e) {
            throw new CreelException(ErrorCode.INTERNAL, e.getMessage(), e);
        }
    }

    /** One slot of the registration: words at {@link #wordOffset}, data at {@link #dataOffset}. */
    static final class Slot {
        private final BufferPool pool;
        private final int base;
        private boolean held;

        private Slot(BufferPool pool, int base) {
            this.pool = pool;
            this.base = base;
        }

        /** The registration the slot lies in. */
        RegisteredMemory memory() {
            return pool.memory;
        }

        /** Offset (in the registration) of 8-byte word {@code i} (0..7). */
        int wordOffset(int i) {
            return base + i * 8;
        }

        /** Word {@code i}, in this machine's byte order (as a compare-and-swap leaves it). */
        long word(int i) {
            return pool.memory.buffer().getLong(wordOffset(i));
        }

        /** Word {@code i} read in {@code order} (a tag word as the server stores it). */
        long word(int i, ByteOrder order) {
            long v = word(i);
            return order == ByteOrder.nativeOrder() ? v : Long.reverseBytes(v);
        }

        /** Offset (in the registration) of the first data byte. */
        int dataOffset() {
            return base + WORDS;
        }

        /** Copies {@code length} data bytes from the slot into {@code dst} at its position, advancing it. */
        void copyTo(ByteBuffer dst, int dataOffsetInSlot, int length) {
            ByteBuffer view = pool.memory.buffer().duplicate();
            view.limit(dataOffset() + dataOffsetInSlot + length).position(dataOffset() + dataOffsetInSlot);
            dst.put(view);
        }

        /** Copies {@code length} bytes of {@code src} (from its position, not moved) into the slot's data. */
        void copyFrom(ByteBuffer src, int srcOffset, int length) {
            ByteBuffer from = src.duplicate();
            from.position(src.position() + srcOffset).limit(src.position() + srcOffset + length);
            ByteBuffer view = pool.memory.buffer().duplicate();
            view.limit(dataOffset() + length).position(dataOffset());
            view.put(from);
        }

        /** Returns the slot to the pool; the holder must not touch it afterwards. */
        void release() {
            pool.release(this);
        }
    }
}
