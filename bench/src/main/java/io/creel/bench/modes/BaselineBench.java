package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.baseline.MachineLimits;
import io.creel.bench.baseline.RedisLoad;
import io.creel.bench.baseline.RedisServer;
import io.creel.bench.report.Measurement;
import io.creel.bench.stats.Summary;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** {@code baseline}: loopback sockets, memory copy and (if installed) Redis, measured in this run. */
public final class BaselineBench {
    /** Redis values for the throughput shapes: small, like a metadata record. */
    public static final int REDIS_SMALL = 64;
    /** Redis value for the get-latency comparison (target 3). */
    public static final int REDIS_KV = 1024;
    private static final int REDIS_KEYS = 10_000;

    private BaselineBench() {
    }

    public static void run(BenchContext ctx) {
        Duration d = ctx.settings().durationPerPoint();
        for (int buffer : ctx.settings().buffers()) {
            ctx.progress().point("baseline tcp bandwidth buffer=" + buffer);
            add(ctx, "tcp socket bandwidth", Map.of("buffer", buffer), MachineLimits.tcpBandwidth(buffer, d));
        }
        ctx.progress().point("baseline tcp round trip");
        add(ctx, "tcp socket round trip", Map.of("size", 64), MachineLimits.tcpRoundTrip(64, d));
        ctx.progress().point("baseline memory copy");
        add(ctx, "memory copy", Map.of("size", 64 << 20), MachineLimits.memoryCopy(64 << 20, d));

        Optional<Path> redis = RedisServer.find();
        if (redis.isEmpty()) {
            ctx.report().note("redis-server not installed: Redis comparisons skipped");
            System.err.println("bench: redis-server not installed: Redis comparisons skipped");
            return;
        }
        try (RedisServer server = RedisServer.start(redis.get())) {
            RedisLoad load = new RedisLoad(server.port(), ctx.progress());
            load.preload(REDIS_KEYS, REDIS_KV);
            add(ctx, "redis GET", Map.of("size", REDIS_KV, "clients", 1, "inFlight", 1),
                    load.run("redis GET 1K 1x1", false, 1, 1, REDIS_KEYS, REDIS_KV, d));
            load.preload(REDIS_KEYS, REDIS_SMALL);
            for (int[] shape : ctx.settings().shapes()) {
                String s = shape[0] + "x" + shape[1];
                add(ctx, "redis GET", Map.of("size", REDIS_SMALL, "clients", shape[0], "inFlight", shape[1]),
                        load.run("redis GET " + s, false, shape[0], shape[1], REDIS_KEYS, REDIS_SMALL, d));
                add(ctx, "redis SET", Map.of("size", REDIS_SMALL, "clients", shape[0], "inFlight", shape[1]),
                        load.run("redis SET " + s, true, shape[0], shape[1], REDIS_KEYS, REDIS_SMALL, d));
            }
        } catch (IOException e) {
            ctx.report().note("Redis comparisons skipped: " + e.getMessage());
            System.err.println("bench: Redis comparisons skipped: " + e.getMessage());
        }
    }

    private static void add(BenchContext ctx, String series, Map<String, Object> params, Summary s) {
        ctx.report().add(new Measurement("baseline", series, params, s));
    }
}
