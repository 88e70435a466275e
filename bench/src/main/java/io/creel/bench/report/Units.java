package io.creel.bench.report;

import io.creel.bench.stats.Spread;
import java.util.Locale;
import java.util.function.DoubleFunction;

/** Number formats of the human table. */
public final class Units {
    private Units() {
    }

    /** 1234567 -> "1,234,567"; fractions below 100 keep one decimal. */
    public static String count(double v) {
        if (!Double.isFinite(v)) {
            return "-";
        }
        return v < 100 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%,.0f", v);
    }

    /** Bytes per second as MB/s (10^6). */
    public static String mb(double bytesPerSec) {
        return String.format(Locale.ROOT, "%,.1f", bytesPerSec / 1e6);
    }

    public static String micros(double us) {
        if (us <= 0) {
            return "-";
        }
        return us < 100 ? String.format(Locale.ROOT, "%.1f", us) : String.format(Locale.ROOT, "%,.0f", us);
    }

    /**
     * A repeated figure as "median (min-max)", e.g. "62,029 (58,100-64,000)"; just the median when
     * measured once; "-" when not measured. ASCII only, so any terminal encoding prints it.
     */
    public static String spread(Spread s, DoubleFunction<String> format) {
        if (!s.measured()) {
            return "-";
        }
        String median = format.apply(s.median());
        if (s.count() == 1) {
            return median;
        }
        return median + " (" + format.apply(s.min()) + "-" + format.apply(s.max()) + ")";
    }

    /** A ratio with two decimals, "-" when not finite. */
    public static String ratio(double r) {
        return Double.isFinite(r) ? String.format(Locale.ROOT, "%.2f", r) : "-";
    }

    /** 4 -> "4B", 1024 -> "1K", 1048576 -> "1M". */
    public static String size(long bytes) {
        if (bytes >= (1L << 30) && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "G";
        }
        if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "M";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return (bytes >> 10) + "K";
        }
        return bytes + "B";
    }
}
