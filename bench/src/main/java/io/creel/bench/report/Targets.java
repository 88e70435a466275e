package io.creel.bench.report;

import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import java.util.Optional;

/**
 * The targets 1–5 as ratios of this run's figures (target 6 is added by the lookup mode,
 * which alone knows the namespace sizes). A target whose figures were not both measured in this
 * run (e.g. no Redis, or a mode not run) is left out.
 */
public final class Targets {
    private static final long KIB = 1024;
    private static final long MIB_128 = 128L << 20;

    private Targets() {
    }

    public static void compute(BenchReport r) {
        for (int inFlight : new int[] {1, 16}) {
            int fl = inFlight;
            both(r, "1 lookup 50x" + fl + " vs Redis GET", "ops/s", 1.0, true,
                    r.find("lookup", m -> m.param("clients") == 50 && m.param("inFlight") == fl),
                    r.find("redis GET", m -> m.param("clients") == 50 && m.param("inFlight") == fl
                            && m.param("size") != 1024), false);
        }
        both(r, "2 create KeyValue 50x16 vs Redis SET", "ops/s", 0.5, true,
                r.find("create+commit KeyValue", m -> m.param("clients") == 50 && m.param("inFlight") == 16),
                r.find("redis SET", m -> m.param("clients") == 50 && m.param("inFlight") == 16), false);
        Optional<Summary> redisGet1k = r.find("redis GET", m -> m.param("size") == KIB && m.param("clients") == 1);
        both(r, "3 get 1K p50 same-host vs Redis GET", "us", 1.0, false,
                r.find("get same-host dram", m -> m.param("size") == KIB), redisGet1k, true);
        both(r, "3 get 1K p50 tcp vs Redis GET", "us", 1.5, false,
                r.find("get tcp dram", m -> m.param("size") == KIB), redisGet1k, true);

        Optional<Double> socket = r.series("tcp socket bandwidth").stream().map(m -> m.summary().bytesPerSec())
                .max(Double::compare);
        Optional<Double> memcpy = r.find("memory copy", m -> true).map(Summary::bytesPerSec);
        for (String op : new String[] {"put", "get"}) {
            bandwidth(r, "4 " + op + " 128M tcp vs socket", r.find(op + " tcp dram", m -> m.param("size") == MIB_128),
                    socket, 0.9);
            bandwidth(r, "4 " + op + " 128M same-host vs memcpy",
                    r.find(op + " same-host dram", m -> m.param("size") == MIB_128), memcpy, 0.7);
        }
        ratioBw(r, "5 read tcp 64K buffers vs socket",
                r.find("read direct tcp dram", m -> m.param("buffer") == 64 * KIB), socket, 0.9);
        ratioBw(r, "5 read tcp 4K buffers vs socket",
                r.find("read direct tcp dram", m -> m.param("buffer") == 4 * KIB), socket, 0.5);
    }

    private static void both(BenchReport r, String id, String unit, double goal, boolean higher,
                             Optional<Summary> creel, Optional<Summary> base, boolean p50) {
        if (creel.isEmpty() || base.isEmpty()) {
            return;
        }
        double c = p50 ? creel.get().p50Micros() : creel.get().opsPerSec();
        double b = p50 ? base.get().p50Micros() : base.get().opsPerSec();
        r.ratio(higher ? Ratio.atLeast(id, c, b, unit, goal) : Ratio.atMost(id, c, b, unit, goal));
    }

    /** A whole-value operation's bandwidth: its size over its median latency (MB/s). */
    private static void bandwidth(BenchReport r, String id, Optional<Summary> op, Optional<Double> base, double goal) {
        if (op.isEmpty() || base.isEmpty()) {
            return;
        }
        r.ratio(Ratio.atLeast(id, op.get().p50Bandwidth(MIB_128) / 1e6, base.get() / 1e6, "MB/s", goal));
    }

    private static void ratioBw(BenchReport r, String id, Optional<Summary> op, Optional<Double> base, double goal) {
        if (op.isEmpty() || base.isEmpty()) {
            return;
        }
        r.ratio(Ratio.atLeast(id, op.get().bytesPerSec() / 1e6, base.get() / 1e6, "MB/s", goal));
    }
}
