package io.creel.bench.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A GitHub-flavoured markdown table whose columns are also padded, so the same text reads well on
 * a terminal and pastes into a document unchanged. Cells must not contain {@code |}.
 */
public final class MarkdownTable {
    private final String[] headers;
    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** {@code rightAligned[i]}: column i holds numbers. */
    public MarkdownTable(boolean[] rightAligned, String... headers) {
        if (rightAligned.length != headers.length) {
            throw new IllegalArgumentException(headers.length + " headers but " + rightAligned.length + " alignments");
        }
        this.headers = headers.clone();
        this.rightAligned = rightAligned.clone();
    }

    /** Adds a row of exactly as many cells as there are headers. */
    public MarkdownTable row(String... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of " + headers.length
                    + " columns");
        }
        for (String c : cells) {
            if (c.indexOf('|') >= 0 || c.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("a table cell cannot hold '|' or a line break: " + c);
            }
        }
        rows.add(cells.clone());
        return this;
    }

    public int size() {
        return rows.size();
    }

    /** The table as lines of text. */
    public String render() {
        int[] w = new int[headers.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = Math.max(3, headers[i].length());
            for (String[] r : rows) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, headers, w);
        sb.append('|');
        for (int i = 0; i < w.length; i++) {
            sb.append(rightAligned[i] ? " " + "-".repeat(w[i] - 1) + ": |" : " " + "-".repeat(w[i]) + " |");
        }
        sb.append('\n');
        for (String[] r : rows) {
            line(sb, r, w);
        }
        return sb.toString();
    }

    public void print(PrintStream out) {
        out.print(render());
    }

    private void line(StringBuilder sb, String[] cells, int[] w) {
        sb.append('|');
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i];
            String pad = " ".repeat(w[i] - c.length());
            sb.append(' ').append(rightAligned[i] ? pad + c : c + pad).append(" |");
        }
        sb.append('\n');
    }
}
