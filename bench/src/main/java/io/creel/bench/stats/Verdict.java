package io.creel.bench.stats;

/**
 * What a target's ratio comes to. The one rule, in {@link #of}: a target whose figures were not
 * both measured is {@link #NOT_MEASURED}; one whose baseline moved during the run by more than
 * {@value #MAX_BASELINE_DEVIATION_PERCENT} % from its median ({@link Spread#deviation()}) is
 * {@link #UNSETTLED}, whatever its ratio, because the machine it was measured on did not hold still;
 * otherwise the ratio of the medians is {@link #MET} or {@link #MISSED}.
 */
public enum Verdict {
    /** The ratio of the medians meets the goal and the baseline held still. */
    MET("met"),
    /** The ratio of the medians misses the goal and the baseline held still. */
    MISSED("missed"),
    /** The baseline moved by more than {@value #MAX_BASELINE_DEVIATION_PERCENT} % from its median. */
    UNSETTLED("unsettled"),
    /** Creel's figure or the baseline was not measured in the run. */
    NOT_MEASURED("not measured");

    /** The largest deviation of a baseline from its median, in percent, that still allows met or missed. */
    public static final int MAX_BASELINE_DEVIATION_PERCENT = 30;

    private final String text;

    Verdict(String text) {
        this.text = text;
    }

    /**
     * The verdict on {@code ratio} (Creel's median over the baseline's median) against
     * {@code goal}, given every sample of the baseline in {@code baseline}. A deviation of exactly
     * {@value #MAX_BASELINE_DEVIATION_PERCENT} % is still settled.
     */
    public static Verdict of(Goal goal, double ratio, Spread baseline) {
        if (Double.isNaN(ratio) || !baseline.measured()) {
            return NOT_MEASURED;
        }
        double deviation = baseline.deviation();
        // Compared in percent, rounded to a millionth, so that 30 % computed as 0.30000000000000004 is not "more".
        if (Double.isNaN(deviation) || Math.round(deviation * 1e8) > MAX_BASELINE_DEVIATION_PERCENT * 1_000_000L) {
            return UNSETTLED;
        }
        return goal.metBy(ratio) ? MET : MISSED;
    }

    /** The verdict as the report prints it: "met", "missed", "unsettled" or "not measured". */
    public String text() {
        return text;
    }
}
