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
 * <p>Buffer ownership: a buffer passed to a read belongs to the reader until the returned future
 * completes; then its position has moved past the bytes read. Sequential reads may be issued
 * without waiting: each takes the next range of the node when it is called.
 */
public final class DirectReader {
    private final String path;
    private final NodeRef node;
    private final long length;
    private final BlockIo io;
    /** The node's bytes when the namenode keeps them inline (then nothing is transferred), else {@code null}. */
    private final byte[] inline;
    private long position;

    DirectReader(String path, NodeRef node, long length, BlockIo io, byte[] inline) {
        this.path = path;
        this.node = node;
        this.length = inline == null ? length : Math.min(length, inline.length);
        this.io = io;
        this.inline = inline;
    }

    /** A reader of the same node that ends at {@code end} (at most this reader's length), positioned at 0. */
    DirectReader limitedTo(long end) {
        return new DirectReader(path, node, Math.min(end, length), io, inline);
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
        synchronized (this) {
            start = position;
            n = span(start, dst);
            if (n > 0) {
                position += n;
            }
        }
        return transfer(start, dst, n);
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
        // The caller's buffer moves here, once, when every piece has arrived; the layers below
        // work on slices of it and report failures already worded (see BlockTransfers).
        return Futures.guard(() -> io.read(node, start, range, length)).thenApply(v -> {
            dst.position(dst.position() + n);
            return n;
        });
    }
}
