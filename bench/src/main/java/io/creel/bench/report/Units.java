package io.creel.bench.report;

import java.util.Locale;

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
