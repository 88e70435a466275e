package io.creel.client;

import io.creel.client.block.BlockIo;
import io.creel.client.block.NodeRef;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Asynchronous reads of a File's or KeyValue's bytes straight into the caller's buffers, up to the
 * length the node had when it was opened (its synced length). Reads that span blocks move all
 * blocks at once; block locations are cached and looked up ahead of the transfer. A small node whose
 * bytes came inline with its lookup is read from them, with no transfer.
 *
 * <p>Small sequential reads from a server a round trip away are served from bytes read ahead
 * ({@link ReadAhead}, {@code creel.client.read.ahead}): once {@link #SLOW_READS_TO_READ_AHEAD}
 * consecutive {@link #read(ByteBuffer)} calls, each starting where the last ended, had to wait for
 * their transfer, and as long as the reads keep that order and stay below a quarter of a read-ahead
 * window. Everything else — positional reads, large reads, reads that complete at once because the
 * blocks are on this host — goes straight into the caller's buffer.
 *
 * <p>Buffer ownership: a buffer passed to a read belongs to the reader until the returned future
 * completes; then its position has moved past the bytes read. Sequential reads may be issued
 * without waiting: each takes the next range of the node when it is called.
 */
public final class DirectReader {
    /** Sequential reads that waited for their transfer, in a row, before the reader reads ahead. */
    public static final int SLOW_READS_TO_READ_AHEAD = 2;

    private final String path;
    private final NodeRef node;
    private final long length;
    private final BlockIo io;
    private final int readAhead;
    /** The node's bytes when the namenode keeps them inline (then nothing is transferred), else {@code null}. */
    private final byte[] inline;
    private long position;
    /** Where the last sequential read ended (-1: none yet). */
    private long sequentialEnd = -1;
    /** Sequential reads in a row that did not complete at once. */
    private int slowReads;
    /** Made when first needed; {@code null} until then or when read-ahead is off. */
    private ReadAhead ahead;

    /**
     * @param readAhead bytes to read ahead of small sequential reads, 0 for none
     * @param inline the node's bytes if its lookup carried them, else {@code null}
     */
    DirectReader(String path, NodeRef node, long length, BlockIo io, int readAhead, byte[] inline) {
        this.path = path;
        this.node = node;
        this.length = inline == null ? length : Math.min(length, inline.length);
        this.io = io;
        this.readAhead = readAhead;
        this.inline = inline;
    }

    /** A reader of the same node that ends at {@code end} (at most this reader's length), positioned at 0. */
    DirectReader limitedTo(long end) {
        return new DirectReader(path, node, Math.min(end, length), io, readAhead, inline);
    }

    /** Bytes readable: the node's synced length when it was opened. */
    public long length() {
        return length;
    }

    /** Where the next sequential read starts. */
    public synchronized long position() {
        return position;
    }

    /** Moves the next sequential read to {@code newPosition} (0..length). */
    public synchronized void seek(long newPosition) {
        if (newPosition < 0 || newPosition > length) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": cannot seek to " + newPosition
                    + ", the readable length is " + length);
        }
        position = newPosition;
    }

    /**
     * Reads the next bytes into {@code dst}: as many as fit, up to the end of the node.
     *
     * @return bytes read, or -1 at the end (0 only when {@code dst} has no room)
     */
    public CompletableFuture<Integer> read(ByteBuffer dst) {
        long start;
        int n;
        ReadAhead from;
        synchronized (this) {
            start = position;
            n = span(start, dst);
            if (n <= 0) {
                return CompletableFuture.completedFuture(n);
            }
            position += n;
            boolean inOrder = start == sequentialEnd;
            sequentialEnd = start + n;
            if (!inOrder) {
                slowReads = 0;
                if (ahead != null) {
                    ahead.drop();
                }
            }
            from = inOrder && slowReads >= SLOW_READS_TO_READ_AHEAD ? readAhead(n) : null;
        }
        if (from != null) {
            return moved(dst, n, Futures.guard(() -> from.read(start, dst.slice(dst.position(), n))));
        }
        CompletableFuture<Integer> f = transfer(start, dst, n);
        boolean waited = !f.isDone();
        synchronized (this) {
            slowReads = waited ? slowReads + 1 : 0;
        }
        return f;
    }

    /** The read-ahead, if a sequential read of {@code n} bytes should be served from it (under the lock). */
    private ReadAhead readAhead(int n) {
        if (readAhead <= 0 || inline != null) {
            return null;
        }
        if (ahead == null) {
            ahead = new ReadAhead(node, io, length, readAhead, (int) io.blockSize());
        }
        return ahead.suits(n) ? ahead : null;
    }

    /**
     * Reads at {@code position} without moving the sequential position.
     *
     * @return bytes read, or -1 if {@code position} is at or beyond the end
     */
    public CompletableFuture<Integer> read(long position, ByteBuffer dst) {
        if (position < 0) {
            return Futures.failed(new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": negative read position "
                    + position));
        }
        return transfer(position, dst, span(position, dst));
    }

    private int span(long start, ByteBuffer dst) {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (start >= length) {
            return -1;
        }
        return (int) Math.min(dst.remaining(), length - start);
    }

    private CompletableFuture<Integer> transfer(long start, ByteBuffer dst, int n) {
        if (n <= 0) {
            return CompletableFuture.completedFuture(n);
        }
        if (inline != null) {
            dst.put(inline, (int) start, n);
            return CompletableFuture.completedFuture(n);
        }
        ByteBuffer range = dst.slice(dst.position(), n);
        return moved(dst, n, Futures.guard(() -> io.read(node, start, range, length)));
    }

    /**
     * The caller's buffer moves here, once, when every piece of the read has arrived; the layers below
     * work on slices of it and report failures already worded (see BlockTransfers).
     */
    private static CompletableFuture<Integer> moved(ByteBuffer dst, int n, CompletableFuture<Void> read) {
        return Futures.clean(read.thenApply(v -> {
            dst.position(dst.position() + n);
            return n;
        }));
    }
}
