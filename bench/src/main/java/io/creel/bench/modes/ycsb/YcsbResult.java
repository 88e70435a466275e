package io.creel.bench.modes.ycsb;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one YCSB client run reported, read from the lines of its text exporter
 * ({@code [READ], 99thPercentileLatency(us), 812}). YCSB counts a failed operation under
 * {@code [OP], Return=<status>} and times it under {@code [OP-FAILED]}; {@code [VERIFY]} carries the
 * data-integrity checks ({@code Return=UNEXPECTED_STATE} is a wrong value, {@code Return=ERROR} an
 * empty one).
 */
public final class YcsbResult {
    private static final Pattern LINE = Pattern.compile("^\\[([^\\]]+)\\], ([^,]+), (.+)$");
    /** Measurements that are not operations on the store. */
    private static final List<String> NOT_OPERATIONS = List.of("OVERALL", "VERIFY", "CLEANUP");

    private final Map<String, Map<String, Double>> metrics;
    private final List<String> log;

    private YcsbResult(Map<String, Map<String, Double>> metrics, List<String> log) {
        this.metrics = metrics;
        this.log = log;
    }

    /** The same figures with the last lines the client wrote to standard error (for failure messages). */
    public YcsbResult withLog(List<String> lines) {
        return new YcsbResult(metrics, List.copyOf(lines));
    }

    /** The client's last lines of standard error, if kept. */
    public List<String> log() {
        return log;
    }

    /** Parses the exporter's lines; other lines (YCSB's and the bindings' chatter) are skipped. */
    public static YcsbResult parse(List<String> lines) {
        Map<String, Map<String, Double>> m = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher x = LINE.matcher(line.trim());
            if (!x.matches()) {
                continue;
            }
            double v;
            try {
                v = Double.parseDouble(x.group(3).trim());
            } catch (NumberFormatException e) {
                continue; // a line that merely looks like a metric
            }
            m.computeIfAbsent(x.group(1), k -> new LinkedHashMap<>()).put(x.group(2).trim(), v);
        }
        return new YcsbResult(m, List.of());
    }

    /** Whether the run printed its summary at all (a run that died early did not). */
    public boolean complete() {
        return metric("OVERALL", "Throughput(ops/sec)") >= 0;
    }

    /** Operations per second over the run, or -1 if not reported. */
    public double throughput() {
        return metric("OVERALL", "Throughput(ops/sec)");
    }

    /** Wall time of the run in ms, or -1. */
    public double runtimeMillis() {
        return metric("OVERALL", "RunTime(ms)");
    }

    /**
     * The operation types the run performed (READ, UPDATE, INSERT, READ-MODIFY-WRITE, SCAN, ...), in
     * report order. YCSB counts statuses under the operation's own name even when all of them
     * failed (their latencies go to {@code OP-FAILED}); a read-modify-write is timed as a whole
     * but its read and update are also counted as such.
     */
    public List<String> operations() {
        List<String> out = new ArrayList<>();
        metrics.forEach((name, values) -> {
            boolean counted = values.containsKey("Operations") || values.keySet().stream().anyMatch(k -> k.startsWith("Return="));
            if (counted && !NOT_OPERATIONS.contains(name) && !name.endsWith("-FAILED")) {
                out.add(name);
            }
        });
        return out;
    }

    /** Successful operations of {@code op}. */
    public long succeeded(String op) {
        return Math.round(Math.max(0, metric(op, "Return=OK")));
    }

    /** Operations of {@code op} by status other than OK, e.g. {NOT_FOUND=3, ERROR=1}. */
    public Map<String, Long> failures(String op) {
        Map<String, Long> out = new LinkedHashMap<>();
        metrics.getOrDefault(op, Map.of()).forEach((k, v) -> {
            if (k.startsWith("Return=") && !k.equals("Return=OK") && v > 0) {
                out.put(k.substring("Return=".length()), Math.round(v));
            }
        });
        return out;
    }

    /** Operations of {@code op}, whatever their status. */
    public long total(String op) {
        long n = 0;
        boolean statuses = false;
        for (Map.Entry<String, Double> e : metrics.getOrDefault(op, Map.of()).entrySet()) {
            if (e.getKey().startsWith("Return=")) {
                n += Math.round(e.getValue());
                statuses = true;
            }
        }
        return statuses ? n : Math.round(Math.max(0, metric(op, "Operations")));
    }

    /** Operations the client threads completed (YCSB's count behind its throughput), or -1. */
    public long done() {
        double t = throughput();
        double ms = runtimeMillis();
        return t < 0 || ms < 0 ? -1 : Math.round(t * ms / 1000.0);
    }

    /** Latency percentile {@code p} (as exported, e.g. 50 or 99) of the successful {@code op}s in µs, or -1. */
    public double percentileMicros(String op, int p) {
        return metric(op, ordinal(p) + "PercentileLatency(us)");
    }

    /** Mean latency of the successful {@code op}s in µs, or -1. */
    public double averageMicros(String op) {
        return metric(op, "AverageLatency(us)");
    }

    /** Largest latency of the successful {@code op}s in µs, or -1. */
    public double maxMicros(String op) {
        return metric(op, "MaxLatency(us)");
    }

    /** Data-integrity checks that passed. */
    public long verified() {
        return succeeded("VERIFY");
    }

    /** Integrity checks that failed (wrong value or empty record), 0 when the run checked nothing or all passed. */
    public long verificationErrors() {
        return failures("VERIFY").values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * What is wrong with this run, empty if nothing: no summary, fewer operations than
     * {@code expectedOps}, any operation that did not return OK except those whose status is in
     * {@code allowed} (e.g. NOT_IMPLEMENTED for a known unsupported operation), any failed integrity check.
     */
    public List<String> problems(long expectedOps, List<String> allowed) {
        List<String> out = new ArrayList<>();
        if (!complete()) {
            out.add("the run printed no summary (it failed before the end)");
            return out;
        }
        for (String op : operations()) {
            Map<String, Long> bad = new LinkedHashMap<>(failures(op));
            bad.keySet().removeAll(allowed);
            if (!bad.isEmpty()) {
                out.add(op + " returned " + bad);
            }
        }
        if (expectedOps >= 0 && done() != expectedOps) {
            out.add(done() + " operations done, " + expectedOps + " expected");
        }
        if (verificationErrors() > 0) {
            out.add("data integrity: " + verificationErrors() + " of " + total("VERIFY") + " checks failed "
                    + failures("VERIFY"));
        }
        return Collections.unmodifiableList(out);
    }

    private double metric(String name, String key) {
        Double v = metrics.getOrDefault(name, Map.of()).get(key);
        return v == null ? -1 : v;
    }

    private static String ordinal(int p) {
        int mod100 = p % 100;
        String suffix = mod100 >= 11 && mod100 <= 13 ? "th" : switch (p % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return p + suffix;
    }
}
