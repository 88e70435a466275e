package io.creel.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: columns padded to their widest cell; numeric-looking columns right-aligned. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] rightAligned;

    TextTable(boolean[] rightAligned, String... header) {
        this.rightAligned = rightAligned;
        rows.add(header);
    }

    void add(String... cells) {
        rows.add(cells);
    }

    void print(PrintWriter out, String indent) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder sb = new StringBuilder(indent);
            for (int i = 0; i < r.length; i++) {
                String pad = " ".repeat(width[i] - r[i].length());
                sb.append(rightAligned[i] ? pad + r[i] : r[i] + (i == r.length - 1 ? "" : pad));
                if (i < r.length - 1) {
                    sb.append("  ");
                }
            }
            out.println(sb.toString().stripTrailing());
        }
        out.flush();
    }
}
