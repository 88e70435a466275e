package io.creel.bench.stats;

import java.util.Locale;

/**
 * What a target requires of the ratio Creel / baseline.
 *
 * @param value          the required ratio
 * @param higherIsBetter true for throughput and bandwidth (met at or above {@code value}), false
 *                       for latency and size (met at or below)
 */
public record Goal(double value, boolean higherIsBetter) {
    public Goal {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("a goal must be a positive ratio, not " + value);
        }
    }

    /** Met when the ratio is at least {@code value}. */
    public static Goal atLeast(double value) {
        return new Goal(value, true);
    }

    /** Met when the ratio is at most {@code value}. */
    public static Goal atMost(double value) {
        return new Goal(value, false);
    }

    /** Whether {@code ratio} meets the goal (never for NaN). */
    public boolean metBy(double ratio) {
        if (Double.isNaN(ratio)) {
            return false;
        }
        return higherIsBetter ? ratio >= value : ratio <= value;
    }

    /** The goal as text, e.g. {@code ">= 0.9x"}. */
    public String text() {
        return (higherIsBetter ? ">= " : "<= ") + String.format(Locale.ROOT, "%s", trim(value)) + "x";
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.1f", v) : Double.toString(v);
    }
}
