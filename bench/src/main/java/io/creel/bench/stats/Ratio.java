package io.creel.bench.stats;

/**
 * One target: Creel's figure against the machine's (or Redis's) figure in the same run.
 *
 * @param id          target number and name, e.g. "1 lookup 50x1"
 * @param measured    Creel's figure
 * @param baseline    the reference figure; 0 or less when it was not measured
 * @param unit        unit of both figures, for the table
 * @param goal        the required ratio measured/baseline
 * @param higherIsBetter true for throughput/bandwidth (ratio ≥ goal is met), false for latency (ratio ≤ goal)
 */
public record Ratio(String id, double measured, double baseline, String unit, double goal, boolean higherIsBetter) {

    /** A throughput or bandwidth target: met when measured/baseline ≥ goal. */
    public static Ratio atLeast(String id, double measured, double baseline, String unit, double goal) {
        return new Ratio(id, measured, baseline, unit, goal, true);
    }

    /** A latency or size target: met when measured/baseline ≤ goal. */
    public static Ratio atMost(String id, double measured, double baseline, String unit, double goal) {
        return new Ratio(id, measured, baseline, unit, goal, false);
    }

    /** Whether both figures exist (a skipped baseline, e.g. no Redis, leaves the target unmeasured). */
    public boolean measurable() {
        return baseline > 0 && measured > 0 && Double.isFinite(measured) && Double.isFinite(baseline);
    }

    /** measured / baseline, or NaN when not measurable. */
    public double value() {
        return measurable() ? measured / baseline : Double.NaN;
    }

    /** Whether the target is met (false when not measurable). */
    public boolean met() {
        if (!measurable()) {
            return false;
        }
        double r = value();
        return higherIsBetter ? r >= goal : r <= goal;
    }

    /** "met", "NOT met" or "not measured". */
    public String verdict() {
        return !measurable() ? "not measured" : met() ? "met" : "NOT met";
    }

    /** The goal as text, e.g. "≥ 0.9×". */
    public String goalText() {
        return (higherIsBetter ? ">= " : "<= ") + goal + "x";
    }
}
