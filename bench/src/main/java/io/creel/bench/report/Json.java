package io.creel.bench.report;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** A small JSON writer for maps, lists, strings, numbers, booleans and records' maps (enough for the report). */
public final class Json {
    private Json() {
    }

    /** {@code value} as JSON text; non-finite numbers become null. */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Double d) {
            sb.append(Double.isFinite(d) ? number(d) : "null");
        } else if (v instanceof Float f) {
            sb.append(Float.isFinite(f) ? number(f) : "null");
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                newline(sb, indent + 1);
                string(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), indent + 1);
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            if (!m.isEmpty()) {
                newline(sb, indent);
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                newline(sb, indent + 1);
                write(sb, l.get(i), indent + 1);
                if (i + 1 < l.size()) {
                    sb.append(',');
                }
            }
            if (!l.isEmpty()) {
                newline(sb, indent);
            }
            sb.append(']');
        } else {
            string(sb, v.toString());
        }
    }

    private static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    private static void newline(StringBuilder sb, int indent) {
        sb.append('\n');
        sb.append("  ".repeat(indent));
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
