package io.creel.client.io;

import io.creel.client.DirectWriter;
import io.creel.client.Futures;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * A buffered {@link OutputStream} over a {@link DirectWriter}: a full buffer is sent
 * asynchronously while the caller fills the next (at most {@link #MAX_IN_FLIGHT} buffers in
 * flight). {@link #flush()} waits until every byte written has reached storage; {@link #sync()}
 * also publishes it to readers; {@link #close()} publishes and releases the lease. Waits are
 * bounded by the request timeout; failures surface as {@link io.creel.client.CreelIOException}.
 */
public final class NodeOutputStream extends OutputStream {
    /** Buffers being written while the caller fills another. */
    public static final int MAX_IN_FLIGHT = 3;

    private final DirectWriter writer;
    private final int bufferSize;
    private final Duration timeout;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private ByteBuffer buf;
    private boolean closed;

    private record InFlight(CompletableFuture<Void> done, ByteBuffer buffer) {
    }

    public NodeOutputStream(DirectWriter writer, int bufferSize, Duration timeout) {
        this.writer = writer;
        this.bufferSize = bufferSize;
        this.timeout = timeout;
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (buf == null) {
            buf = takeBuffer();
        }
        buf.put((byte) b);
        if (!buf.hasRemaining()) {
            send();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (buf == null) {
                buf = takeBuffer();
            }
            int n = Math.min(len, buf.remaining());
            buf.put(b, off, n);
            off += n;
            len -= n;
            if (!buf.hasRemaining()) {
                send();
            }
        }
    }

    /** Sends buffered bytes and waits until all bytes written so far are stored (not yet published). */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        if (buf != null && buf.position() > 0) {
            send();
        }
        while (!inFlight.isEmpty()) {
            retireOldest();
        }
    }

    /** Flushes and publishes the bytes written so far to readers; the stream stays open. */
    public void sync() throws IOException {
        flush();
        Futures.awaitIo(writer.sync(), timeout, "sync");
    }

    /** Sends what is buffered, waits for every write, and closes the writer (publishing the data). */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (buf != null && buf.position() > 0) {
            send();
        }
        buf = null;
        inFlight.clear();
        free.clear();
        Futures.awaitIo(writer.close(), timeout, "closing the writer");
    }

    private void send() {
        ByteBuffer b = buf;
        buf = null;
        b.flip();
        inFlight.add(new InFlight(writer.write(b), b));
    }

    private ByteBuffer takeBuffer() throws IOException {
        if (!free.isEmpty()) {
            return free.pop();
        }
        if (inFlight.size() < MAX_IN_FLIGHT) {
            return ByteBuffer.allocate(bufferSize);
        }
        retireOldest();
        return free.pop();
    }

    private void retireOldest() throws IOException {
        InFlight oldest = inFlight.poll();
        Futures.awaitIo(oldest.done(), timeout, "writing a buffer");
        free.push(oldest.buffer().clear());
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream is closed");
        }
    }
}
