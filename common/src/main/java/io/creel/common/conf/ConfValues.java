package io.creel.common.conf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Parsers for the value syntaxes configuration keys use: sizes, durations, booleans, lists. */
public final class ConfValues {
    private ConfValues() {
    }

    /**
     * Parses a byte size such as {@code 4096}, {@code 64k}, {@code 128MiB}, {@code 2g}.
     * Suffixes are binary (k = 1024) and case-insensitive; an optional trailing {@code b}/{@code ib} is allowed.
     */
    public static long parseSize(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT).replace("_", "");
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty size");
        }
        if (s.endsWith("ib")) {
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        long mult = 1;
        char last = s.isEmpty() ? ' ' : s.charAt(s.length() - 1);
        switch (last) {
            case 'k' -> mult = 1L << 10;
            case 'm' -> mult = 1L << 20;
            case 'g' -> mult = 1L << 30;
            case 't' -> mult = 1L << 40;
            default -> mult = 1;
        }
        if (mult != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long n = Long.parseLong(s.trim());
            if (n < 0) {
                throw new IllegalArgumentException("size must not be negative: " + text);
            }
            return Math.multiplyExact(n, mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a size (expected e.g. 4096, 64k, 128m, 2g): " + text);
        }
    }

    /** Formats a byte count the way {@link #parseSize} reads it back, e.g. {@code 128m}, or with one decimal for display. */
    public static String formatSize(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** Parses a duration such as {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}; a bare number is milliseconds. */
    public static Duration parseDuration(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(nonNegative(Long.parseLong(s.substring(0, s.length() - 2).trim()), text));
            } else if (s.endsWith("s")) {
                return Duration.ofSeconds(nonNegative(Long.parseLong(s.substring(0, s.length() - 1).trim()), text));
            } else if (s.endsWith("m")) {
                return Duration.ofMinutes(nonNegative(Long.parseLong(s.substring(0, s.length() - 1).trim()), text));
            } else if (s.endsWith("h")) {
                return Duration.ofHours(nonNegative(Long.parseLong(s.substring(0, s.length() - 1).trim()), text));
            }
            return Duration.ofMillis(nonNegative(Long.parseLong(s), text));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration (expected e.g. 500ms, 30s, 2m): " + text);
        }
    }

    private static long nonNegative(long v, String text) {
        if (v < 0) {
            throw new IllegalArgumentException("duration must not be negative: " + text);
        }
        return v;
    }

    /** Parses {@code true}/{@code false} (also yes/no, on/off), rejecting anything else. */
    public static boolean parseBoolean(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException("not a boolean (expected true or false): " + text);
        };
    }

    /** Parses a positive int within [min, max]. */
    public static int parseInt(String text, int min, int max) {
        try {
            int v = Integer.parseInt(text.trim());
            if (v < min || v > max) {
                throw new IllegalArgumentException("must be between " + min + " and " + max + ": " + text);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: " + text);
        }
    }

    /** Splits a comma-separated list, trimming items and dropping empty ones. */
    public static List<String> parseList(String text) {
        List<String> out = new ArrayList<>();
        Arrays.stream(text.split(",")).map(String::trim).filter(x -> !x.isEmpty()).forEach(out::add);
        return List.copyOf(out);
    }

    /** A size in [min, max]; the message names both bounds. */
    public static long parseBounded(String v, long min, long max) {
        long size = parseSize(v);
        if (size < min || size > max) {
            throw new IllegalArgumentException("must be between " + formatSize(min) + " and "
                    + formatSize(max) + ": " + v);
        }
        return size;
    }

    /** The text itself, unless it is empty. */
    public static String nonEmpty(String v) {
        if (v.isEmpty()) {
            throw new IllegalArgumentException("must not be empty");
        }
        return v;
    }

    /** The text, if it is one of {@code allowed}. */
    public static String oneOf(String v, String... allowed) {
        for (String a : allowed) {
            if (a.equals(v)) {
                return v;
            }
        }
        throw new IllegalArgumentException("must be one of " + String.join(", ", allowed) + ": " + v);
    }
}
