package io.creel.bench.report;

import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Sample;
import io.creel.bench.stats.Spread;
import io.creel.bench.stats.Summary;
import io.creel.bench.stats.Verdict;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Everything one bench run measured: facts about the machine and the run, the points (each
 * repeated), notes, and the target ratios. It prints as markdown: the facts first (at the start of
 * the run), the rest at the end, so the whole output of a run pastes into a document.
 */
public final class BenchReport {
    private final Map<String, String> facts = new LinkedHashMap<>();
    private final List<Measurement> measurements = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<Ratio> ratios = new ArrayList<>();
    private final List<BaselineSample> baselineSamples = new ArrayList<>();
    /** How many facts {@link #printFacts} has printed; later ones are printed at the end. */
    private int factsPrinted;

    /** A fact about the machine or the run (shown in the header table, in insertion order). */
    public synchronized void fact(String key, Object value) {
        facts.put(key, String.valueOf(value));
    }

    public synchronized Map<String, String> facts() {
        return new LinkedHashMap<>(facts);
    }

    public synchronized void add(Measurement m) {
        measurements.add(m);
    }

    /** A line for the reader (a skipped comparison, a memory figure). */
    public synchronized void note(String text) {
        notes.add(text);
    }

    /** A sample of a baseline point taken at a checkpoint of the run, outside the mode that compares it. */
    public synchronized void baselineSample(BaselineSample s) {
        baselineSamples.add(s);
    }

    /** The checkpoint samples of {@code m}'s point, in the order taken. */
    public synchronized List<BaselineSample> baselineSamples(Measurement m) {
        return baselineSamples.stream().filter(s -> s.of(m)).toList();
    }

    /** Every checkpoint sample, in the order taken. */
    public synchronized List<BaselineSample> baselineSamples() {
        return List.copyOf(baselineSamples);
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
    public synchronized Optional<Measurement> find(String series, Predicate<Measurement> where) {
        return measurements.stream().filter(m -> m.series().equals(series) && where.test(m)).findFirst();
    }

    /** The measurements of one series, in the order they were taken. */
    public synchronized List<Measurement> series(String series) {
        return measurements.stream().filter(m -> m.series().equals(series)).toList();
    }

    /** The title and the facts known so far, as a markdown table. */
    public synchronized void printFacts(PrintStream out, String title) {
        out.println("# " + title);
        out.println();
        MarkdownTable t = new MarkdownTable(new boolean[] {false, false}, "fact", "value");
        facts.forEach((k, v) -> t.row(k, v.replace('|', '/')));
        t.print(out);
        out.println();
        out.flush();
        factsPrinted = facts.size();
    }

    /** The points, the targets and the notes, as markdown sections. */
    public synchronized void printResults(PrintStream out) {
        out.println("## Points");
        out.println();
        out.println("Each figure: median of the repetitions, (min-max) when repeated.");
        out.println();
        MarkdownTable t = new MarkdownTable(new boolean[] {false, false, false, true, true, true, true, true},
                "mode", "series", "point", "runs", "ops/s", "MB/s", "p50 us", "p99 us");
        for (Measurement m : measurements) {
            Spread mb = m.spread(s -> s.bytesPerSec() / 1e6);
            t.row(m.mode(), m.series(), point(m.params()), Integer.toString(m.runs().size()),
                    Units.spread(m.spread(Summary::opsPerSec), Units::count),
                    mb.max() > 0 ? Units.spread(mb, v -> Units.mb(v * 1e6)) : "-",
                    Units.spread(m.spread(Summary::p50Micros), Units::micros),
                    Units.spread(m.spread(Summary::p99Micros), Units::micros));
        }
        t.print(out);
        if (!baselineSamples.isEmpty()) {
            printBaselines(out);
        }
        if (!ratios.isEmpty()) {
            printTargets(out);
        }
        if (!notes.isEmpty()) {
            out.println();
            out.println("## Notes");
            out.println();
            notes.forEach(n -> out.println("- " + n));
        }
        if (facts.size() > factsPrinted) {
            out.println();
            out.println("## End of the run");
            out.println();
            MarkdownTable end = new MarkdownTable(new boolean[] {false, false}, "fact", "value");
            facts.entrySet().stream().skip(factsPrinted).forEach(e -> end.row(e.getKey(), e.getValue().replace('|', '/')));
            end.print(out);
            factsPrinted = facts.size();
        }
        out.flush();
    }

    private void printTargets(PrintStream out) {
        out.println();
        out.println("## Targets");
        out.println();
        out.println("Ratio of the medians: Creel's over its repetitions, the baseline's over every sample of it in the "
                + "run (below). (low-high) is the range the samples allow: per pair for figures measured only in "
                + "alternation, else Creel's extremes over the baseline's. Baseline spread: how far its samples moved "
                + "from their median. Verdict: \"unsettled\" when that is more than "
                + Verdict.MAX_BASELINE_DEVIATION_PERCENT + " %, else \"met\" or \"missed\" at the medians.");
        out.println();
        MarkdownTable rt = new MarkdownTable(new boolean[] {false, true, true, true, false, true, false, false},
                "target", "creel", "baseline", "baseline spread", "unit", "ratio", "goal", "verdict");
        for (Ratio r : ratios) {
            String ratio = Units.ratio(r.value());
            if (r.measurable() && (r.measured().count() > 1 || r.baseline().count() > 1)) {
                ratio += " (" + Units.ratio(r.low()) + "-" + Units.ratio(r.high()) + ")";
            }
            rt.row(r.id(), Units.spread(r.measured(), Units::count), Units.spread(r.baseline(), Units::count),
                    percent(r.baseline().deviation()) + " of " + r.baseline().count(), r.unit(), ratio, r.goalText(),
                    r.verdict());
        }
        rt.print(out);
        out.println();
        out.println("## Baseline samples");
        out.println();
        out.println("Every sample of each target's baseline, in the target's unit: first those of the mode that "
                + "compared it, then those taken at the run's checkpoints (--baseline-samples).");
        out.println();
        MarkdownTable st = new MarkdownTable(new boolean[] {false, false, false, true},
                "target", "unit", "sample", "value");
        for (Ratio r : ratios) {
            for (Sample s : r.baselineSamples()) {
                st.row(r.id(), r.unit(), s.when(), Units.count(s.value()));
            }
        }
        st.print(out);
    }

    /**
     * Every baseline point sampled at the run's checkpoints, with every sample of it: its mode's
     * repetitions first, then the checkpoints', in ops/s for Redis, in MB/s for the others.
     */
    private void printBaselines(PrintStream out) {
        out.println();
        out.println("## Baselines across the run");
        out.println();
        out.println("Each baseline point sampled before, between and after the modes (--baseline-samples), with its "
                + "mode's repetitions (\"rN\"); spread: how far the samples moved from their median.");
        out.println();
        MarkdownTable t = new MarkdownTable(new boolean[] {false, false, false, false, true, true},
                "series", "point", "unit", "samples", "median (min-max)", "spread");
        List<BaselineSample> firsts = new ArrayList<>();
        for (BaselineSample s : baselineSamples) {
            if (firsts.stream().noneMatch(f -> f.series().equals(s.series()) && f.params().equals(s.params()))) {
                firsts.add(s);
            }
        }
        for (BaselineSample first : firsts) {
            // Redis's figure is operations (its small values move bytes too); the others move bytes.
            boolean bytes = !first.series().startsWith("redis") && first.summary().bytesPerSec() > 0;
            java.util.function.ToDoubleFunction<Summary> figure = bytes ? x -> x.bytesPerSec() / 1e6
                    : Summary::opsPerSec;
            List<String> cells = new ArrayList<>();
            List<Double> values = new ArrayList<>();
            Optional<Measurement> own = measurements.stream()
                    .filter(m -> m.series().equals(first.series()) && m.params().equals(first.params())).findFirst();
            own.ifPresent(m -> {
                for (int i = 0; i < m.runs().size(); i++) {
                    double v = figure.applyAsDouble(m.runs().get(i));
                    values.add(v);
                    cells.add("r" + (i + 1) + " " + Units.count(v));
                }
            });
            for (BaselineSample s : baselineSamples) {
                if (s.series().equals(first.series()) && s.params().equals(first.params())) {
                    double v = figure.applyAsDouble(s.summary());
                    values.add(v);
                    cells.add(s.when() + " " + Units.count(v));
                }
            }
            Spread spread = Spread.of(values.stream().mapToDouble(Double::doubleValue).toArray());
            t.row(first.series(), point(first.params()), bytes ? "MB/s" : "ops/s", String.join("; ", cells),
                    Units.spread(spread, Units::count), percent(spread.deviation()));
        }
        t.print(out);
    }

    /** 0.253 -> "25.3 %", NaN -> "-". */
    static String percent(double fraction) {
        return Double.isFinite(fraction) ? String.format(Locale.ROOT, "%.1f %%", fraction * 100) : "-";
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

    /** The whole report as a JSON document: every repetition of every point, and the spreads. */
    public synchronized String toJson() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("facts", new LinkedHashMap<>(facts));
        List<Object> points = new ArrayList<>();
        for (Measurement m : measurements) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("mode", m.mode());
            p.put("series", m.series());
            p.put("params", new LinkedHashMap<>(m.params()));
            p.put("opsPerSec", spread(m.spread(Summary::opsPerSec)));
            p.put("bytesPerSec", spread(m.spread(Summary::bytesPerSec)));
            p.put("p50Micros", spread(m.spread(Summary::p50Micros)));
            p.put("p99Micros", spread(m.spread(Summary::p99Micros)));
            List<Object> runs = new ArrayList<>();
            for (Summary s : m.runs()) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("count", s.count());
                r.put("seconds", s.seconds());
                r.put("opsPerSec", s.opsPerSec());
                r.put("bytesPerSec", s.bytesPerSec());
                r.put("meanMicros", s.meanMicros());
                r.put("p50Micros", s.p50Micros());
                r.put("p99Micros", s.p99Micros());
                r.put("p999Micros", s.p999Micros());
                r.put("maxMicros", s.maxMicros());
                runs.add(r);
            }
            p.put("runs", runs);
            points.add(p);
        }
        doc.put("measurements", points);
        List<Object> rs = new ArrayList<>();
        for (Ratio r : ratios) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", r.id());
            m.put("unit", r.unit());
            m.put("creel", spread(r.measured()));
            m.put("baseline", spread(r.baseline()));
            m.put("ratio", r.value());
            m.put("ratioLow", r.low());
            m.put("ratioHigh", r.high());
            m.put("paired", r.paired());
            m.put("goal", r.goalText());
            m.put("baselineDeviation", r.baseline().deviation());
            List<Object> samples = new ArrayList<>();
            for (Sample s : r.baselineSamples()) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("when", s.when());
                one.put("value", s.value());
                samples.add(one);
            }
            m.put("baselineSamples", samples);
            m.put("verdict", r.verdict());
            rs.add(m);
        }
        doc.put("targets", rs);
        List<Object> checkpoints = new ArrayList<>();
        for (BaselineSample b : baselineSamples) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("series", b.series());
            m.put("params", new LinkedHashMap<>(b.params()));
            m.put("when", b.when());
            m.put("opsPerSec", b.summary().opsPerSec());
            m.put("bytesPerSec", b.summary().bytesPerSec());
            m.put("p50Micros", b.summary().p50Micros());
            m.put("p99Micros", b.summary().p99Micros());
            checkpoints.add(m);
        }
        doc.put("baselineCheckpointSamples", checkpoints);
        doc.put("notes", new ArrayList<>(notes));
        return Json.write(doc);
    }

    private static Map<String, Object> spread(Spread s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median", s.median());
        m.put("min", s.min());
        m.put("max", s.max());
        m.put("count", s.count());
        return m;
    }
}
