package io.creel.bench.report;

import io.creel.bench.stats.Goal;
import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Sample;
import io.creel.bench.stats.Spread;
import io.creel.bench.stats.Summary;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The targets of the performance issue as ratios of this run's figures: 2 (bulk transfers, as
 * users run them and through the API), 3 (metadata against Redis), and the earlier small-get
 * latency targets; target 4 (namenode memory, 10 M nodes) is added by the lookup mode, which alone
 * knows the namespace sizes. A target whose figures were not both measured in this run (no Redis,
 * a mode not run) is left out. Two figures of the same mode were measured in alternation, so their
 * ratio's range is taken pair by pair. A baseline's samples taken at the run's checkpoints (before,
 * between and after the modes) join its repetitions in the ratio's baseline.
 */
public final class Targets {
    private static final long KIB = 1024;
    private static final long MIB_128 = 128L << 20;

    private Targets() {
    }

    public static void compute(BenchReport r) {
        userLevel(r);
        bulk(r);
        metadata(r);
        for (String path : new String[] {"same-host", "tcp"}) {
            Optional<Measurement> redisGet1k = r.find("redis GET", m -> m.param("size") == KIB
                    && m.param("clients") == 1 && m.param("inFlight") == 1);
            compare(r, "kv get 1K p50 " + path + " vs Redis GET p50 (earlier target)", "us",
                    Goal.atMost(path.equals("tcp") ? 1.5 : 1.0),
                    r.find("get " + path + " dram", m -> m.param("size") == KIB), redisGet1k, Summary::p50Micros);
        }
    }

    /**
     * Target 2 in a fresh client JVM: the API's get and put against cat, cp and a socket (the
     * {@code bin/creel fs} commands' ratios are bench/scripts/fs-bulk.sh's).
     */
    private static void userLevel(BenchReport r) {
        Optional<Measurement> cat = r.find("cat from tmpfs", m -> true);
        Optional<Measurement> socket = r.find("socket transfer", m -> true);
        Optional<Measurement> cp = r.find("cp into tmpfs", m -> true);
        String size = cat.or(() -> cp).map(m -> " " + Units.size(m.param("size"))).orElse("");
        String who = "2 API (fresh JVM) ";
        compare(r, who + "get" + size + " same-host vs cat from tmpfs", "MB/s", Goal.atLeast(0.5),
                r.find("api get same-host (fresh JVM)", m -> true), cat, Targets::mb);
        compare(r, who + "get" + size + " tcp vs socket", "MB/s", Goal.atLeast(0.8),
                r.find("api get tcp (fresh JVM)", m -> true), socket, Targets::mb);
        compare(r, who + "put" + size + " vs cp into tmpfs", "MB/s", Goal.atLeast(0.9),
                r.find("api put same-host (fresh JVM)", m -> true), cp, Targets::mb);
    }

    /** Target 2 in the warmed-up bench JVM: 128 MiB values and sequential reads. */
    private static void bulk(BenchReport r) {
        // The socket's best buffer size is the machine's limit: the best median over all its samples in the run.
        Optional<Measurement> socket = r.series("tcp socket bandwidth").stream()
                .max(Comparator.comparingDouble(m -> allSamples(r, m, Summary::bytesPerSec).median()));
        Optional<Measurement> memcpy = r.find("memory copy", m -> true);
        for (String op : new String[] {"put", "get"}) {
            compare(r, "2 " + op + " 128M tcp vs socket", "MB/s", Goal.atLeast(0.9),
                    r.find(op + " tcp dram", m -> m.param("size") == MIB_128), socket, Targets::mb128,
                    Targets::mb);
            compare(r, "2 " + op + " 128M same-host vs memcpy", "MB/s", Goal.atLeast(0.7),
                    r.find(op + " same-host dram", m -> m.param("size") == MIB_128), memcpy, Targets::mb128,
                    Targets::mb);
        }
        compare(r, "2 read direct tcp 64K buffers vs socket", "MB/s", Goal.atLeast(0.9),
                r.find("read direct tcp dram", m -> m.param("buffer") == 64 * KIB), socket, Targets::mb);
        compare(r, "2 read direct tcp 4K buffers vs socket", "MB/s", Goal.atLeast(0.5),
                r.find("read direct tcp dram", m -> m.param("buffer") == 4 * KIB), socket, Targets::mb);
    }

    /** Target 3: clients in their own process against Redis's clients, same shapes, measured in alternation. */
    private static void metadata(BenchReport r) {
        for (int inFlight : new int[] {1, 16}) {
            compare(r, "3 lookup 50x" + inFlight + " vs Redis GET", "ops/s", Goal.atLeast(1.0),
                    shape(r, "lookup", 50, inFlight), shape(r, "redis GET", 50, inFlight), Summary::opsPerSec);
        }
        compare(r, "3 create KeyValue 50x16 vs Redis SET", "ops/s", Goal.atLeast(0.5),
                shape(r, "create+commit KeyValue", 50, 16), shape(r, "redis SET", 50, 16), Summary::opsPerSec);
        compare(r, "3 lookup p99 50x16 vs Redis GET p99", "us", Goal.atMost(2.0),
                shape(r, "lookup", 50, 16), shape(r, "redis GET", 50, 16), Summary::p99Micros);
        compare(r, "3 create p99 50x16 vs Redis SET p99", "us", Goal.atMost(2.0),
                shape(r, "create+commit KeyValue", 50, 16), shape(r, "redis SET", 50, 16), Summary::p99Micros);
    }

    private static Optional<Measurement> shape(BenchReport r, String series, int clients, int inFlight) {
        return r.find(series, m -> m.param("clients") == clients && m.param("inFlight") == inFlight
                && m.param("size") != KIB);
    }

    private static double mb(Summary s) {
        return s.bytesPerSec() / 1e6;
    }

    /** A whole 128 MiB value's bandwidth: its size over the operation's median latency (MB/s). */
    private static double mb128(Summary s) {
        return s.p50Bandwidth(MIB_128) / 1e6;
    }

    private static void compare(BenchReport r, String id, String unit, Goal goal, Optional<Measurement> creel,
                                Optional<Measurement> base, ToDoubleFunction<Summary> figure) {
        compare(r, id, unit, goal, creel, base, figure, figure);
    }

    private static void compare(BenchReport r, String id, String unit, Goal goal, Optional<Measurement> creel,
                                Optional<Measurement> base, ToDoubleFunction<Summary> creelFigure,
                                ToDoubleFunction<Summary> baseFigure) {
        if (creel.isEmpty() || base.isEmpty()) {
            return;
        }
        Measurement c = creel.get();
        Measurement b = base.get();
        boolean paired = c.mode().equals(b.mode()) && c.runs().size() == b.runs().size();
        r.ratio(Ratio.of(id, unit, goal, c.values(creelFigure), b.values(baseFigure), paired,
                checkpointSamples(r, b, baseFigure)));
    }

    /** The samples of {@code base}'s point taken at the run's checkpoints, as one figure each. */
    private static List<Sample> checkpointSamples(BenchReport r, Measurement base, ToDoubleFunction<Summary> figure) {
        return r.baselineSamples(base).stream()
                .map(s -> new Sample(s.when(), figure.applyAsDouble(s.summary()))).toList();
    }

    /** One figure of {@code m}'s point over its repetitions and its checkpoint samples together. */
    private static Spread allSamples(BenchReport r, Measurement m, ToDoubleFunction<Summary> figure) {
        double[] own = m.values(figure);
        double[] more = checkpointSamples(r, m, figure).stream().mapToDouble(Sample::value).toArray();
        double[] all = java.util.Arrays.copyOf(own, own.length + more.length);
        System.arraycopy(more, 0, all, own.length, more.length);
        return Spread.of(all);
    }
}
