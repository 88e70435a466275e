package io.creel.bench.baseline;

import io.creel.bench.Progress;
import io.creel.bench.stats.LatencyRecorder;
import io.creel.bench.stats.Summary;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Closed-loop GET or SET load on Redis with the same shape as Creel's runs: {@code clients}
 * connections (one thread each), each keeping {@code inFlight} commands pipelined; a command's
 * latency is from its write to its reply.
 */
public final class RedisLoad {
    private final int port;
    private final Progress progress;

    public RedisLoad(int port, Progress progress) {
        this.port = port;
        this.progress = progress;
    }

    /** Sets keys {@code k0..k(keys-1)} to {@code valueSize}-byte values. */
    public void preload(int keys, int valueSize) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            RespConnection c = new RespConnection(s);
            byte[] v = new byte[valueSize];
            for (int i = 0; i < keys; i++) {
                c.sendSet(key(i), v);
                if (i % 64 == 63) {
                    for (int j = 0; j < 64; j++) {
                        c.readReply();
                    }
                }
            }
            for (int j = 0; j < keys % 64; j++) {
                c.readReply();
            }
        }
    }

    /** Runs GET (or SET when {@code set}) of random keys among {@code keys}. */
    public Summary run(String label, boolean set, int clients, int inFlight, int keys, int valueSize,
                       Duration duration) {
        LatencyRecorder rec = new LatencyRecorder();
        ExecutorService pool = Executors.newFixedThreadPool(clients, MachineLimits.daemon("bench-redis"));
        progress.point(label, rec::count);
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        try {
            List<Future<?>> all = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int seed = c;
                all.add(pool.submit(() -> {
                    connectionLoop(set, inFlight, keys, valueSize, end, rec, seed);
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(duration.toSeconds() + 30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException(label + ": " + e, e);
        } finally {
            pool.shutdownNow();
        }
        return rec.summary(System.nanoTime() - start);
    }

    private void connectionLoop(boolean set, int inFlight, int keys, int valueSize, long end, LatencyRecorder rec,
                                int seed) throws IOException {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        byte[] value = new byte[valueSize];
        long[] sentAt = new long[inFlight];
        try (Socket s = new Socket("127.0.0.1", port)) {
            RespConnection c = new RespConnection(s);
            int head = 0;
            int outstanding = 0;
            for (int i = 0; i < inFlight; i++) {
                sentAt[i] = System.nanoTime();
                send(c, set, key(rnd.nextInt(keys)), value);
                outstanding++;
            }
            while (outstanding > 0) {
                c.readReply();
                long now = System.nanoTime();
                rec.record(now - sentAt[head], valueSize);
                outstanding--;
                if (now < end) {
                    sentAt[head] = System.nanoTime();
                    send(c, set, key(rnd.nextInt(keys)), value);
                    outstanding++;
                }
                head = (head + 1) % inFlight;
            }
        }
    }

    private static void send(RespConnection c, boolean set, byte[] key, byte[] value) throws IOException {
        if (set) {
            c.sendSet(key, value);
        } else {
            c.sendGet(key);
        }
    }

    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.US_ASCII);
    }
}
