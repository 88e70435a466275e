package io.creel.bench.baseline;

import io.creel.bench.stats.LatencyRecorder;
import io.creel.bench.stats.Summary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * What this machine can do without Creel: loopback TCP bandwidth and round trip with plain Java
 * sockets (blocking NIO channels, direct buffers, as lean as Java gets), and single-thread memory copy.
 */
public final class MachineLimits {
    private MachineLimits() {
    }

    /**
     * Bytes per second one connection carries over loopback: a sender writes {@code bufferSize}
     * buffers for {@code duration} while a receiver reads and discards them.
     */
    public static Summary tcpBandwidth(int bufferSize, Duration duration) {
        ExecutorService pool = Executors.newSingleThreadExecutor(daemon("bench-tcp-sink"));
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Future<Long> sink = pool.submit(() -> {
                try (SocketChannel in = server.accept()) {
                    ByteBuffer buf = ByteBuffer.allocateDirect(bufferSize);
                    long total = 0;
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        total += n;
                        buf.clear();
                    }
                    return total;
                }
            });
            long sent = 0;
            long ops = 0;
            long start;
            try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
                ByteBuffer buf = ByteBuffer.allocateDirect(bufferSize);
                start = System.nanoTime();
                long end = start + duration.toNanos();
                while (System.nanoTime() < end) {
                    buf.clear();
                    while (buf.hasRemaining()) {
                        sent += out.write(buf);
                    }
                    ops++;
                }
            }
            long received = sink.get(30, TimeUnit.SECONDS);
            long elapsed = System.nanoTime() - start;
            return Summary.bandwidth(received, ops, elapsed);
        } catch (IOException e) {
            throw new UncheckedIOException("loopback bandwidth: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalStateException("loopback bandwidth: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One transfer of {@code bytes} over a fresh loopback connection in {@code bufferSize}
     * writes, timed from the connection's start until the receiver has read the last byte: the
     * raw-socket counterpart of copying one large file over TCP.
     */
    public static Summary tcpTransfer(long bytes, int bufferSize) {
        ExecutorService pool = Executors.newSingleThreadExecutor(daemon("bench-tcp-sink"));
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Future<Long> sink = pool.submit(() -> {
                try (SocketChannel in = server.accept()) {
                    ByteBuffer buf = ByteBuffer.allocateDirect(bufferSize);
                    long total = 0;
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        total += n;
                        buf.clear();
                    }
                    return total;
                }
            });
            long start = System.nanoTime();
            try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
                ByteBuffer buf = ByteBuffer.allocateDirect(bufferSize);
                long left = bytes;
                while (left > 0) {
                    buf.clear().limit((int) Math.min(bufferSize, left));
                    while (buf.hasRemaining()) {
                        left -= out.write(buf);
                    }
                }
            }
            long received = sink.get(5, TimeUnit.MINUTES);
            long elapsed = System.nanoTime() - start;
            if (received != bytes) {
                throw new IllegalStateException("loopback transfer: sent " + bytes + " bytes, received " + received);
            }
            return Summary.bandwidth(bytes, 1, elapsed);
        } catch (IOException e) {
            throw new UncheckedIOException("loopback transfer: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("loopback transfer interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("loopback transfer: the receiver failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Round trips of a {@code size}-byte message over one loopback connection, one at a time (an echo server). */
    public static Summary tcpRoundTrip(int size, Duration duration) {
        ExecutorService pool = Executors.newSingleThreadExecutor(daemon("bench-tcp-echo"));
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            pool.submit(() -> {
                try (SocketChannel in = server.accept()) {
                    in.socket().setTcpNoDelay(true);
                    ByteBuffer buf = ByteBuffer.allocateDirect(size);
                    while (true) {
                        buf.clear();
                        while (buf.hasRemaining()) {
                            if (in.read(buf) < 0) {
                                return null;
                            }
                        }
                        buf.flip();
                        while (buf.hasRemaining()) {
                            in.write(buf);
                        }
                    }
                }
            });
            LatencyRecorder rec = new LatencyRecorder();
            long start;
            try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
                out.socket().setTcpNoDelay(true);
                ByteBuffer buf = ByteBuffer.allocateDirect(size);
                start = System.nanoTime();
                long end = start + duration.toNanos();
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    buf.clear();
                    while (buf.hasRemaining()) {
                        out.write(buf);
                    }
                    buf.clear();
                    while (buf.hasRemaining()) {
                        if (out.read(buf) < 0) {
                            throw new IOException("echo server closed the connection");
                        }
                    }
                    rec.record(System.nanoTime() - t0, 2L * size);
                }
            }
            return rec.summary(System.nanoTime() - start);
        } catch (IOException e) {
            throw new UncheckedIOException("loopback round trip: " + e.getMessage(), e);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Single-thread copy bandwidth between two direct buffers of {@code size} bytes (the copy a
     * same-host transfer makes from a mapped region into the caller's buffer).
     */
    public static Summary memoryCopy(int size, Duration duration) {
        ByteBuffer src = ByteBuffer.allocateDirect(size);
        ByteBuffer dst = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i += 4096) {
            src.put(i, (byte) i);
            dst.put(i, (byte) 0); // touch every page so the first pass does not measure page faults
        }
        long ops = 0;
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        while (System.nanoTime() < end) {
            dst.clear();
            dst.put(src.duplicate());
            ops++;
        }
        long elapsed = System.nanoTime() - start;
        return Summary.bandwidth(ops * (long) size, ops, elapsed);
    }

    static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
