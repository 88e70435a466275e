package io.creel.bench.stats;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One figure measured several times: its median, smallest and largest value. The median is what
 * targets compare (one disturbed repetition on a shared machine does not move it); min–max is the
 * spread a reader should expect when running the same command.
 *
 * @param median the middle value (the mean of the two middle values for an even count)
 * @param min    the smallest value
 * @param max    the largest value
 * @param count  how many values; 0 for a figure that was not measured
 */
public record Spread(double median, double min, double max, int count) {
    /** A figure that was not measured. */
    public static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

    /** The spread of {@code values}; {@link #NONE} when there are none. NaN values are refused. */
    public static Spread of(double... values) {
        if (values.length == 0) {
            return NONE;
        }
        double[] v = values.clone();
        for (double d : v) {
            if (Double.isNaN(d)) {
                throw new IllegalArgumentException("a measured value is NaN: " + Arrays.toString(values));
            }
        }
        Arrays.sort(v);
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return new Spread(median, v[0], v[n - 1], n);
    }

    /** The spread of one figure of each repetition, e.g. {@code of(runs, Summary::opsPerSec)}. */
    public static Spread of(List<Summary> runs, ToDoubleFunction<Summary> figure) {
        return of(runs.stream().mapToDouble(figure).toArray());
    }

    /** Whether at least one value was measured. */
    public boolean measured() {
        return count > 0;
    }

    /**
     * How far the values moved from their median: the larger of (max − median) and (median − min),
     * over the median (0.25 for 25 %); 0 for a single value, NaN when not measured or the median is 0.
     * This is the spread {@code docs/benchmarks.md} prints beside a baseline and {@link Verdict} judges.
     */
    public double deviation() {
        if (!measured() || median == 0) {
            return Double.NaN;
        }
        return Math.max(max - median, median - min) / Math.abs(median);
    }

    /** (max − min) / median: the spread relative to the figure, 0 for a single value. */
    public double relativeWidth() {
        return !measured() || median == 0 ? Double.NaN : (max - min) / median;
    }
}
