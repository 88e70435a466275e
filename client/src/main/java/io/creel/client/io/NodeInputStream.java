package io.creel.client.io;

import io.creel.client.DirectReader;
import io.creel.client.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A buffered, seekable {@link InputStream} over a {@link DirectReader}. While the caller consumes
 * one buffer, the next one is already being read, so a sequential reader rarely waits. Each wait
 * is bounded by the request timeout; a failed read surfaces as a
 * {@link io.creel.client.CreelIOException} carrying the Creel error's message.
 */
public final class NodeInputStream extends InputStream {
    private final DirectReader reader;
    private final int bufferSize;
    private final Duration timeout;
    private final long length;
    /** Bytes at stream positions [currentStart, currentStart + current.limit()). */
    private ByteBuffer current;
    private long currentStart;
    private CompletableFuture<ByteBuffer> ahead;
    private long aheadStart;
    private long position;
    private boolean closed;

    public NodeInputStream(DirectReader reader, int bufferSize, Duration timeout) {
        this.reader = reader;
        this.bufferSize = bufferSize;
        this.timeout = timeout;
        this.length = reader.length();
    }

    /** Readable bytes in all. */
    public long length() {
        return length;
    }

    /** Where the next read starts. */
    public long position() {
        return position;
    }

    /** Moves the next read to {@code newPosition} (0..length). */
    public void seek(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0 || newPosition > length) {
            throw new IOException("cannot seek to " + newPosition + ", the readable length is " + length);
        }
        position = newPosition;
        if (current != null && position >= currentStart && position <= currentStart + current.limit()) {
            current.position((int) (position - currentStart));
        } else {
            current = null;
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (position >= length) {
            return -1;
        }
        if (current == null || !current.hasRemaining()) {
            fill();
        }
        int n = Math.min(len, current.remaining());
        current.get(b, off, n);
        position += n;
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        if (n <= 0) {
            return 0;
        }
        long target = Math.min(length, position + n);
        long skipped = target - position;
        seek(target);
        return skipped;
    }

    @Override
    public int available() throws IOException {
        ensureOpen();
        return current == null ? 0 : current.remaining();
    }

    private void fill() throws IOException {
        ByteBuffer spare = current;
        current = null;
        if (ahead != null && aheadStart == position) {
            current = Futures.awaitIo(ahead, timeout, "reading ahead at " + position);
        } else {
            ahead = null; // a seek made it useless; its buffer is left to it
            current = Futures.awaitIo(fetch(position, spare), timeout, "reading at " + position);
            spare = null;
        }
        currentStart = position;
        ahead = null;
        long next = position + current.remaining();
        if (next < length) {
            aheadStart = next;
            ahead = fetch(next, spare);
        }
    }

    private CompletableFuture<ByteBuffer> fetch(long at, ByteBuffer reuse) {
        int size = (int) Math.min(bufferSize, length - at);
        ByteBuffer buf = reuse != null && reuse.capacity() >= size ? reuse.clear().limit(size) : ByteBuffer.allocate(size);
        return reader.read(at, buf).thenApply(n -> buf.flip());
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        current = null;
        ahead = null;
    }
}
