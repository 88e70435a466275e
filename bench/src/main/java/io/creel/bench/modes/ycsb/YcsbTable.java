package io.creel.bench.modes.ycsb;

import io.creel.bench.report.Units;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The comparison as rows: per workload, all operations together and then each operation type,
 * with Creel's and Redis's throughput, p50 and p99, and the Creel/Redis ratios (above 1 is better
 * for throughput, below 1 for latency).
 */
final class YcsbTable {
    /** One row; a figure that was not measured is -1. */
    record Row(String workload, String op, double creelOps, double redisOps, double creelP50, double redisP50,
               double creelP99, double redisP99) {
        double opsRatio() {
            return ratio(creelOps, redisOps);
        }

        double p50Ratio() {
            return ratio(creelP50, redisP50);
        }

        double p99Ratio() {
            return ratio(creelP99, redisP99);
        }

        private static double ratio(double a, double b) {
            return a > 0 && b > 0 ? a / b : Double.NaN;
        }
    }

    private final List<Row> rows = new ArrayList<>();
    private final long verifiedCreel;
    private final long verifiedRedis;

    YcsbTable(Map<String, Map<String, YcsbResult>> results, List<String> order) {
        Map<String, YcsbResult> creel = results.get("creel");
        Map<String, YcsbResult> redis = results.getOrDefault("redis", Map.of());
        long vc = 0;
        long vr = 0;
        for (String w : order) {
            YcsbResult c = creel.get(w);
            if (c == null) {
                continue;
            }
            YcsbResult r = redis.get(w);
            String name = w.toUpperCase(Locale.ROOT);
            rows.add(new Row(name, "all", c.throughput(), r == null ? -1 : r.throughput(), -1, -1, -1, -1));
            for (String op : c.operations()) {
                rows.add(new Row(name, op, perSecond(c, op), r == null ? -1 : perSecond(r, op),
                        c.percentileMicros(op, 50), r == null ? -1 : r.percentileMicros(op, 50),
                        c.percentileMicros(op, 99), r == null ? -1 : r.percentileMicros(op, 99)));
            }
            vc += c.verified();
            vr += r == null ? 0 : r.verified();
        }
        this.verifiedCreel = vc;
        this.verifiedRedis = vr;
    }

    private static double perSecond(YcsbResult r, String op) {
        double s = r.runtimeMillis() / 1000.0;
        return s > 0 ? r.total(op) / s : -1;
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    void print(PrintStream out, String header, String footnote) {
        out.println();
        out.println(header);
        String fmt = "%-4s %-18s %12s %12s %7s   %9s %9s %7s   %9s %9s %7s%n";
        out.printf(fmt, "wl", "operation", "creel ops/s", "redis ops/s", "ratio", "creel p50", "redis p50", "ratio",
                "creel p99", "redis p99", "ratio");
        for (Row r : rows) {
            out.printf(fmt, r.workload(), r.op(), Units.count(r.creelOps()), figure(r.redisOps()), ratio(r.opsRatio()),
                    Units.micros(r.creelP50()), Units.micros(r.redisP50()), ratio(r.p50Ratio()),
                    Units.micros(r.creelP99()), Units.micros(r.redisP99()), ratio(r.p99Ratio()));
        }
        out.println("latencies in us; ratios are creel/redis (throughput: higher is better for Creel; latency: lower)");
        out.printf(Locale.ROOT, "data integrity: every read checked, 0 errors (%,d checks on Creel, %,d on Redis)%n",
                verifiedCreel, verifiedRedis);
        if (footnote != null) {
            out.println(footnote);
        }
    }

    private static String figure(double v) {
        return v < 0 ? "-" : Units.count(v);
    }

    private static String ratio(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
