package io.creel.cli;

import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.client.Futures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * Bulk copies between local channels and Creel nodes through the direct API: large buffers, a
 * few in flight at once, so the local side and the network side keep each other busy.
 */
final class Transfers {
    /**
     * Buffers small enough that all of them together (8 MiB) stay in the CPU's last-level cache: the
     * bytes are copied into them (from the page cache on the same host, from the socket over TCP) and
     * straight out again. With 4 x 8 MiB a fresh JVM copied 1 GiB from a DRAM region at 4-8 GB/s; with
     * 4 x 2 MiB at 17 GB/s, what {@code cat} reaches (bench/scripts/profile-fs.sh shows the copy).
     */
    static final int CHUNK = 2 << 20;
    static final int DEPTH = 4;

    private Transfers() {
    }

    private record Pending(CompletableFuture<Integer> done, ByteBuffer buffer) {
    }

    /** Copies everything from {@code in} to the writer (not closed); returns the bytes copied. */
    static long upload(ReadableByteChannel in, DirectWriter writer, Progress progress, Duration timeout)
            throws IOException {
        ArrayDeque<Pending> inFlight = new ArrayDeque<>();
        ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        long total = 0;
        boolean eof = false;
        while (!eof) {
            ByteBuffer buf;
            if (!free.isEmpty()) {
                buf = free.pop().clear();
            } else if (inFlight.size() < DEPTH) {
                buf = ByteBuffer.allocateDirect(CHUNK);
            } else {
                Pending p = inFlight.poll();
                progress.advance(Futures.awaitIo(p.done(), timeout, "writing"));
                buf = p.buffer().clear();
            }
            while (buf.hasRemaining()) {
                if (in.read(buf) < 0) {
                    eof = true;
                    break;
                }
            }
            buf.flip();
            if (buf.hasRemaining()) {
                int n = buf.remaining();
                total += n;
                inFlight.add(new Pending(writer.write(buf).thenApply(v -> n), buf));
            }
        }
        while (!inFlight.isEmpty()) {
            progress.advance(Futures.awaitIo(inFlight.poll().done(), timeout, "writing"));
        }
        return total;
    }

    /** Copies the node's readable bytes to {@code out}; returns the bytes copied. */
    static long download(CreelNode node, WritableByteChannel out, Progress progress, Duration timeout)
            throws IOException {
        DirectReader reader = node.reader();
        long length = reader.length();
        ArrayDeque<Pending> inFlight = new ArrayDeque<>();
        ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        long next = 0;
        long total = 0;
        while (next < length || !inFlight.isEmpty()) {
            while (next < length && inFlight.size() < DEPTH) {
                // Buffers are reused: a fresh direct buffer costs a page fault and a clearing per page.
                ByteBuffer buf = free.isEmpty() ? ByteBuffer.allocateDirect((int) Math.min(CHUNK, length)) : free.pop();
                buf.clear().limit((int) Math.min(buf.capacity(), length - next));
                inFlight.add(new Pending(reader.read(next, buf), buf));
                next += buf.limit();
            }
            Pending p = inFlight.poll();
            int n = Futures.awaitIo(p.done(), timeout, "reading");
            ByteBuffer buf = p.buffer().flip();
            while (buf.hasRemaining()) {
                out.write(buf);
            }
            free.push(buf);
            total += n;
            progress.advance(n);
        }
        return total;
    }
}
