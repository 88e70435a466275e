package io.creel.client;

import io.creel.client.block.BlockIo;
import io.creel.client.block.NodeRef;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The bytes a {@link DirectReader} fetches ahead of a caller that reads small pieces in order from a
 * storage server a round trip away: consecutive windows of the node, each one block-aligned read, a
 * few in flight while the caller copies out of the oldest. A caller reading 4 KiB at a time then waits
 * for a memory copy, not for a round trip per read.
 *
 * <p>A window is read like any other range (block tags checked, see {@code BlockTransfers}), so its
 * bytes are the node's; they may predate an in-place update made after they were fetched, as in any
 * buffered stream. A window whose read failed is dropped: the reads waiting for it fail with its error,
 * and a later read fetches that range again.
 *
 * <p>Thread safety: guarded by its own lock; copies into the callers' buffers run on whichever thread
 * completes the window's read (or the caller's, when the window is already there).
 */
final class ReadAhead {
    /** Windows in flight at most: with small blocks, more would be many small reads, not more bandwidth. */
    static final int MAX_WINDOWS = 8;

    private final NodeRef node;
    private final BlockIo io;
    private final long length;
    private final int window;
    private final int depth;
    /** Consecutive windows of the node, ascending. */
    private final ArrayDeque<Window> windows = new ArrayDeque<>();
    /** Buffers of retired windows, for the next ones. */
    private final ArrayDeque<ByteBuffer> spare = new ArrayDeque<>();
    /** Where the newest window ends: the next window starts here. */
    private long fetchedUpTo;
    /** Where the furthest read handed to this read-ahead ends; windows wholly before it are done with. */
    private long readUpTo;

    /**
     * @param bytesAhead how far ahead to read, at least two windows' worth
     * @param blockSize  the cluster's block size; a window divides it, so it never crosses a boundary of
     *                   whole blocks. A node whose first block is a size class's has its boundaries
     *                   shifted by that block: a window may then span two blocks, which {@link BlockIo}
     *                   reads as two pieces (cheaper than windows as small as that first block)
     */
    ReadAhead(NodeRef node, BlockIo io, long length, int bytesAhead, int blockSize) {
        this.node = node;
        this.io = io;
        this.length = length;
        this.window = windowSize(bytesAhead, blockSize);
        this.depth = Math.max(2, Math.min(MAX_WINDOWS, bytesAhead / window));
    }

    /** The largest power of two that is at most half the read-ahead and divides the block size. */
    static int windowSize(int bytesAhead, int blockSize) {
        int w = Integer.highestOneBit(Math.max(4096, bytesAhead / 2));
        while (w > 4096 && blockSize % w != 0) {
            w >>= 1;
        }
        return Math.min(w, blockSize);
    }

    int window() {
        return window;
    }

    /** Whether a read of {@code n} bytes is small enough to be served from the windows. */
    boolean suits(int n) {
        return n <= window / 4;
    }

    /**
     * Copies the {@code dst.remaining()} bytes of the node at {@code start} into {@code dst} (from its
     * position, which is not moved), fetching windows as needed.
     */
    synchronized CompletableFuture<Void> read(long start, ByteBuffer dst) {
        long end = start + dst.remaining();
        Window first = windows.peekFirst();
        if (first == null || start < first.start || start >= fetchedUpTo || failedAt(start)) {
            restartAt(start - start % window);
        }
        // A window's read may complete on this thread, retiring windows at once: until this read's
        // copies are counted, the windows it needs must not look done with (readUpTo stays at start).
        while (fetchedUpTo < end) {
            fetchNext();
        }
        List<Window> sources = new ArrayList<>(2);
        for (Window w : windows) {
            if (w.start >= end) {
                break;
            }
            if (w.end() > start) {
                w.copies++; // counted before any copy runs, so no window retires under a read that needs it
                sources.add(w);
            }
        }
        readUpTo = Math.max(readUpTo, end);
        List<CompletableFuture<Void>> pieces = new ArrayList<>(sources.size());
        for (Window w : sources) {
            long from = Math.max(start, w.start);
            long to = Math.min(end, w.end());
            ByteBuffer into = dst.slice(dst.position() + (int) (from - start), (int) (to - from));
            pieces.add(w.copyTo(into, (int) (from - w.start)));
        }
        retire();
        return pieces.size() == 1 ? pieces.get(0)
                : CompletableFuture.allOf(pieces.toArray(CompletableFuture[]::new));
    }

    /** Forgets the windows (the caller stopped reading in order); their buffers go once no copy needs them. */
    synchronized void drop() {
        for (Window w : windows) {
            w.dropped = true;
        }
        windows.clear();
        spare.clear();
        fetchedUpTo = 0;
        readUpTo = 0;
    }

    private boolean failedAt(long start) {
        for (Window w : windows) {
            if (w.start <= start && start < w.end()) {
                return w.filled.isCompletedExceptionally();
            }
        }
        return false;
    }

    private void restartAt(long windowStart) {
        drop();
        fetchedUpTo = windowStart;
        readUpTo = windowStart;
    }

    private void fetchNext() {
        long start = fetchedUpTo;
        int n = (int) Math.min(window, length - start);
        ByteBuffer buf = spare.isEmpty() ? ByteBuffer.allocateDirect(window) : spare.pop();
        buf.clear().limit(n);
        Window w = new Window(start, n, buf);
        windows.addLast(w);
        fetchedUpTo = start + n;
        w.fill(io.read(node, start, buf, length));
    }

    /**
     * Retires the windows every read has moved past and no copy still needs, and keeps {@code depth}
     * windows fetched ahead of the furthest read.
     */
    private void retire() {
        while (!windows.isEmpty()) {
            Window w = windows.peekFirst();
            if (w.end() > readUpTo || w.copies > 0 || !w.filled.isDone()) {
                break;
            }
            windows.pollFirst();
            if (!w.filled.isCompletedExceptionally() && fetchedUpTo < length) {
                spare.push(w.buf);
            }
        }
        while (windows.size() < depth && fetchedUpTo < length) {
            fetchNext();
        }
    }

    /** Bytes [start, start + length) of the node, being fetched into (or fetched in) {@code buf}. */
    private final class Window {
        final long start;
        final int length;
        final ByteBuffer buf;
        final CompletableFuture<Void> filled = new CompletableFuture<>();
        /** Copies out of this window not finished yet (guarded by the read-ahead's lock). */
        int copies;
        /** Set when the read-ahead forgot it: its buffer is not reused. */
        boolean dropped;

        Window(long start, int length, ByteBuffer buf) {
            this.start = start;
            this.length = length;
            this.buf = buf;
        }

        long end() {
            return start + length;
        }

        void fill(CompletableFuture<Void> read) {
            read.whenComplete((v, t) -> {
                if (t != null) {
                    filled.completeExceptionally(t);
                } else {
                    filled.complete(null);
                }
                synchronized (ReadAhead.this) {
                    if (!dropped) {
                        retire();
                    }
                }
            });
        }

        /** Copies the window's bytes from {@code offset} into {@code into} once they are there (a counted copy). */
        CompletableFuture<Void> copyTo(ByteBuffer into, int offset) {
            return filled.thenRun(() -> into.put(0, buf, offset, into.remaining()))
                    .whenComplete((v, t) -> {
                        synchronized (ReadAhead.this) {
                            copies--;
                            if (!dropped) {
                                retire();
                            }
                        }
                    });
        }
    }
}
