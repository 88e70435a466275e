package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.baseline.MachineLimits;
import java.time.Duration;
import java.util.Map;

/**
 * {@code baseline}: loopback sockets, memory copy, and the latency of a 1 KiB Redis GET, measured
 * in this run. Redis's throughput at each concurrency shape is measured by the lookup and create
 * modes, in alternation with Creel's figures it is compared with.
 */
public final class BaselineBench {
    /** Redis values for the throughput shapes: small, like a metadata record. */
    public static final int REDIS_SMALL = 64;
    /** Redis value for the get-latency comparison. */
    public static final int REDIS_KV = 1024;
    /** Bytes the memory-copy baseline copies per operation. */
    public static final int MEMORY_COPY_SIZE = 64 << 20;
    /** The memory-copy baseline's point, as the report and {@link BaselineSampler} name it. */
    public static final Map<String, Object> MEMORY_COPY_POINT = Map.of("size", MEMORY_COPY_SIZE);

    private BaselineBench() {
    }

    /** Measures the baselines {@code --repeat} times each, back to back; {@link BaselineSampler} samples them across the run. */
    public static void run(BenchContext ctx) {
        Duration d = ctx.settings().durationPerPoint();
        for (int buffer : ctx.settings().buffers()) {
            ctx.repeat("baseline", "tcp socket bandwidth", Map.of("buffer", buffer), r -> {
                ctx.progress().point(ctx.label("baseline tcp bandwidth buffer=" + buffer, r));
                return MachineLimits.tcpBandwidth(buffer, d);
            });
        }
        ctx.repeat("baseline", "tcp socket round trip", Map.of("size", 64), r -> {
            ctx.progress().point(ctx.label("baseline tcp round trip", r));
            return MachineLimits.tcpRoundTrip(64, d);
        });
        ctx.repeat("baseline", "memory copy", MEMORY_COPY_POINT, r -> {
            ctx.progress().point(ctx.label("baseline memory copy", r));
            return MachineLimits.memoryCopy(MEMORY_COPY_SIZE, d);
        });
        ctx.redis().ifPresent(redis -> ctx.repeat("baseline", "redis GET",
                Map.of("size", REDIS_KV, "clients", 1, "inFlight", 1),
                r -> redis.get(ctx.label("redis GET 1K 1x1", r), 1, 1, REDIS_KV, d)));
    }
}
