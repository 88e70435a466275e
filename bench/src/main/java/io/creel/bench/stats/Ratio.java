package io.creel.bench.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One target: Creel's figure against the machine's (or Redis's) figure in the same run, both
 * repeated. The ratio is that of the medians, the baseline's median taken over every sample of it
 * in the run: the repetitions of the mode that compared it and the samples taken before, between and
 * after the modes ({@code --baseline-samples}). {@code low}–{@code high} is how far the ratio moved:
 * for figures measured only in alternation (A, B, A, B, ...) the smallest and largest ratio of one
 * repetition's pair, otherwise the extremes the two spreads allow (Creel's min over the baseline's
 * max, Creel's max over the baseline's min). The verdict is {@link Verdict#of}'s.
 *
 * @param id              target number and name, e.g. "3 lookup 50x1 vs Redis GET"
 * @param unit            unit of both figures, for the table
 * @param measured        Creel's figure
 * @param baseline        the reference figure over all its samples ({@link Spread#NONE} when it was not measured)
 * @param baselineSamples every sample of the baseline, in the order the report lists them
 * @param goal            what the ratio must be
 * @param low             smallest ratio the repetitions support
 * @param high            largest ratio the repetitions support
 * @param paired          whether the two figures were measured only in alternation, repetition by repetition
 */
public record Ratio(String id, String unit, Spread measured, Spread baseline, List<Sample> baselineSamples, Goal goal,
                    double low, double high, boolean paired) {
    public Ratio {
        baselineSamples = List.copyOf(baselineSamples);
    }

    /** A throughput or bandwidth target from single figures: met when measured/baseline ≥ goal. */
    public static Ratio atLeast(String id, double measured, double baseline, String unit, double goal) {
        return of(id, unit, Goal.atLeast(goal), new double[] {measured}, new double[] {baseline}, false);
    }

    /** A latency or size target from single figures: met when measured/baseline ≤ goal. */
    public static Ratio atMost(String id, double measured, double baseline, String unit, double goal) {
        return of(id, unit, Goal.atMost(goal), new double[] {measured}, new double[] {baseline}, false);
    }

    /**
     * A target from repeated figures. With {@code paired}, {@code measured[i]} and
     * {@code baseline[i]} were taken one after the other and the range is over their ratios; the
     * two arrays must then have the same length.
     */
    public static Ratio of(String id, String unit, Goal goal, double[] measured, double[] baseline, boolean paired) {
        return of(id, unit, goal, measured, baseline, paired, List.of());
    }

    /**
     * A target from repeated figures and further samples of the baseline taken elsewhere in the run
     * ({@code more}). The baseline's median and spread are over {@code baseline} and {@code more}
     * together; with samples in {@code more} the range is no longer per pair but the extremes of the
     * two spreads, so that it contains the ratio of the medians.
     */
    public static Ratio of(String id, String unit, Goal goal, double[] measured, double[] baseline, boolean paired,
                           List<Sample> more) {
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < baseline.length; i++) {
            samples.add(new Sample(baseline.length == 1 ? "in the mode" : "in the mode, repetition " + (i + 1),
                    baseline[i]));
        }
        samples.addAll(more);
        double[] all = samples.stream().mapToDouble(Sample::value).toArray();
        Spread m = usable(measured) ? Spread.of(measured) : Spread.NONE;
        Spread b = usable(all) ? Spread.of(all) : Spread.NONE;
        if (!m.measured() || !b.measured()) {
            return new Ratio(id, unit, m, b, samples, goal, Double.NaN, Double.NaN, false);
        }
        if (paired && more.isEmpty()) {
            if (measured.length != baseline.length) {
                throw new IllegalArgumentException(id + ": paired figures need as many repetitions on both sides, not "
                        + measured.length + " and " + baseline.length);
            }
            double[] r = new double[measured.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = measured[i] / baseline[i];
            }
            Spread rs = Spread.of(r);
            return new Ratio(id, unit, m, b, samples, goal, rs.min(), rs.max(), true);
        }
        return new Ratio(id, unit, m, b, samples, goal, m.min() / b.max(), m.max() / b.min(), false);
    }

    /** Figures that can form a ratio: at least one, all finite and positive. */
    private static boolean usable(double[] values) {
        return values.length > 0 && Arrays.stream(values).allMatch(v -> v > 0 && Double.isFinite(v));
    }

    /** Whether both figures exist (a skipped baseline, e.g. no Redis, leaves the target unmeasured). */
    public boolean measurable() {
        return measured.measured() && baseline.measured();
    }

    /** median(measured) / median(baseline), or NaN when not measurable. */
    public double value() {
        return measurable() ? measured.median() / baseline.median() : Double.NaN;
    }

    /** Whether the ratio of the medians meets the goal (false when not measurable), settled or not. */
    public boolean met() {
        return measurable() && goal.metBy(value());
    }

    /** The verdict: met, missed, unsettled (the baseline moved too much) or not measured. */
    public Verdict judged() {
        return Verdict.of(goal, value(), baseline);
    }

    /** The verdict as text: "met", "missed", "unsettled" or "not measured". */
    public String verdict() {
        return judged().text();
    }

    /** The goal as text, e.g. "≥ 0.9×". */
    public String goalText() {
        return goal.text();
    }
}
