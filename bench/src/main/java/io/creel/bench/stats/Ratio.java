package io.creel.bench.stats;

import java.util.Arrays;

/**
 * One target: Creel's figure against the machine's (or Redis's) figure in the same run, both
 * repeated. The ratio is that of the medians; {@code low}–{@code high} is how far it moved:
 * for figures measured in alternation (A, B, A, B, ...) the smallest and largest ratio of one
 * repetition's pair, otherwise the extremes the two spreads allow (Creel's min over the baseline's
 * max, Creel's max over the baseline's min).
 *
 * @param id       target number and name, e.g. "3 lookup 50x1 vs Redis GET"
 * @param unit     unit of both figures, for the table
 * @param measured Creel's figure
 * @param baseline the reference figure ({@link Spread#NONE} when it was not measured)
 * @param goal     what the ratio must be
 * @param low      smallest ratio the repetitions support
 * @param high     largest ratio the repetitions support
 * @param paired   whether the two figures were measured in alternation, repetition by repetition
 */
public record Ratio(String id, String unit, Spread measured, Spread baseline, Goal goal, double low, double high,
                    boolean paired) {

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
        Spread m = usable(measured) ? Spread.of(measured) : Spread.NONE;
        Spread b = usable(baseline) ? Spread.of(baseline) : Spread.NONE;
        if (!m.measured() || !b.measured()) {
            return new Ratio(id, unit, m, b, goal, Double.NaN, Double.NaN, false);
        }
        if (paired) {
            if (measured.length != baseline.length) {
                throw new IllegalArgumentException(id + ": paired figures need as many repetitions on both sides, not "
                        + measured.length + " and " + baseline.length);
            }
            double[] r = new double[measured.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = measured[i] / baseline[i];
            }
            Spread rs = Spread.of(r);
            return new Ratio(id, unit, m, b, goal, rs.min(), rs.max(), true);
        }
        return new Ratio(id, unit, m, b, goal, m.min() / b.max(), m.max() / b.min(), false);
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

    /** Whether the target is met at the medians (false when not measurable). */
    public boolean met() {
        return measurable() && goal.metBy(value());
    }

    /**
     * "met", "NOT met", "not measured", or — when the range straddles the goal — the verdict at
     * the medians followed by "(spread crosses the goal)".
     */
    public String verdict() {
        if (!measurable()) {
            return "not measured";
        }
        String v = met() ? "met" : "NOT met";
        return goal.metBy(low) != goal.metBy(high) ? v + " (spread crosses the goal)" : v;
    }

    /** The goal as text, e.g. "≥ 0.9×". */
    public String goalText() {
        return goal.text();
    }
}
