package io.creel.bench.report;

import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** Everything one bench run measured: the machine, the points, notes, and the target ratios. */
public final class BenchReport {
    private final Map<String, Object> machine = new LinkedHashMap<>();
    private final List<Measurement> measurements = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<Ratio> ratios = new ArrayList<>();

    public synchronized void machine(String key, Object value) {
        machine.put(key, value);
    }

    public synchronized void add(Measurement m) {
        measurements.add(m);
    }

    /** A line for the reader (a skipped comparison, a memory figure). */
    public synchronized void note(String text) {
        notes.add(text);
    }

    public synchronized void ratio(Ratio r) {
        ratios.add(r);
    }

    public synchronized List<Measurement> measurements() {
        return List.copyOf(measurements);
    }

    public synchronized List<Ratio> ratios() {
        return List.copyOf(ratios);
    }

    public synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    /** The first measurement of {@code series} whose parameters satisfy {@code where}. */
    public synchronized Optional<Summary> find(String series, Predicate<Measurement> where) {
        return measurements.stream().filter(m -> m.series().equals(series) && where.test(m)).map(Measurement::summary)
                .findFirst();
    }

    /** The measurements of one series, in the order they were taken. */
    public synchronized List<Measurement> series(String series) {
        return measurements.stream().filter(m -> m.series().equals(series)).toList();
    }

    /** The human table: one line per point, then the targets. */
    public synchronized void print(PrintStream out) {
        out.printf("%-9s %-30s %-26s %12s %11s %10s %10s %10s%n", "mode", "series", "point", "ops/s", "MB/s",
                "p50 us", "p99 us", "p999 us");
        for (Measurement m : measurements) {
            Summary s = m.summary();
            out.printf("%-9s %-30s %-26s %12s %11s %10s %10s %10s%n", m.mode(), m.series(), point(m.params()),
                    Units.count(s.opsPerSec()), s.bytesPerSec() > 0 ? Units.mb(s.bytesPerSec()) : "-",
                    Units.micros(s.p50Micros()), Units.micros(s.p99Micros()), Units.micros(s.p999Micros()));
        }
        if (!ratios.isEmpty()) {
            out.println();
            out.printf("%-44s %14s %14s %-6s %8s %-8s %s%n", "target", "creel", "baseline", "unit", "ratio", "goal",
                    "verdict");
            for (Ratio r : ratios) {
                out.printf("%-44s %14s %14s %-6s %8s %-8s %s%n", r.id(), Units.count(r.measured()),
                        r.baseline() > 0 ? Units.count(r.baseline()) : "-", r.unit(),
                        r.measurable() ? String.format("%.2f", r.value()) : "-", r.goalText(), r.verdict());
            }
        }
        if (!notes.isEmpty()) {
            out.println();
            notes.forEach(n -> out.println("note: " + n));
        }
    }

    private static String point(Map<String, Object> params) {
        StringBuilder sb = new StringBuilder();
        for (String k : List.of("size", "clients", "inFlight", "buffer", "files", "nodes")) {
            Object v = params.get(k);
            if (v == null) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append(' ');
            }
            switch (k) {
                case "size", "buffer" -> sb.append(k).append('=').append(Units.size(((Number) v).longValue()));
                case "clients" -> sb.append(v).append('x');
                case "inFlight" -> sb.append(v).append(" in flight");
                default -> sb.append(k).append('=').append(v);
            }
        }
        return sb.toString();
    }

    /** The whole report as a JSON document. */
    public synchronized String toJson() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("machine", machine);
        List<Object> points = new ArrayList<>();
        for (Measurement m : measurements) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("mode", m.mode());
            p.put("series", m.series());
            p.put("params", new LinkedHashMap<>(m.params()));
            Summary s = m.summary();
            p.put("count", s.count());
            p.put("seconds", s.seconds());
            p.put("opsPerSec", s.opsPerSec());
            p.put("bytesPerSec", s.bytesPerSec());
            p.put("meanMicros", s.meanMicros());
            p.put("p50Micros", s.p50Micros());
            p.put("p99Micros", s.p99Micros());
            p.put("p999Micros", s.p999Micros());
            p.put("maxMicros", s.maxMicros());
            points.add(p);
        }
        doc.put("measurements", points);
        List<Object> rs = new ArrayList<>();
        for (Ratio r : ratios) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", r.id());
            m.put("creel", r.measured());
            m.put("baseline", r.baseline());
            m.put("unit", r.unit());
            m.put("ratio", r.value());
            m.put("goal", r.goalText());
            m.put("verdict", r.verdict());
            rs.add(m);
        }
        doc.put("targets", rs);
        doc.put("notes", new ArrayList<>(notes));
        return Json.write(doc);
    }
}
