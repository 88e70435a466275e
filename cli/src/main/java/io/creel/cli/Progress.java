package io.creel.cli;

import io.creel.common.conf.ConfValues;
import java.io.PrintStream;
import java.util.Locale;

/** A one-line progress bar on stderr (bytes, percent, MiB/s), drawn only on a terminal. */
final class Progress {
    /** Transfers smaller than this finish too fast for a bar to help. */
    static final long MIN_SIZE = 8L << 20;

    private final String label;
    private final long total;
    private final PrintStream out;
    private final boolean enabled;
    private final long startNanos = System.nanoTime();
    private long lastDraw;
    private long done;

    private Progress(String label, long total, PrintStream out, boolean enabled) {
        this.label = label;
        this.total = total;
        this.out = out;
        this.enabled = enabled;
    }

    /** A bar when stderr is a terminal and the transfer is large (or of unknown size, {@code total < 0}). */
    static Progress forTransfer(String label, long total) {
        boolean terminal = System.console() != null;
        return new Progress(label, total, System.err, terminal && (total < 0 || total >= MIN_SIZE));
    }

    void advance(long bytes) {
        done += bytes;
        long now = System.nanoTime();
        if (enabled && now - lastDraw > 200_000_000L) {
            lastDraw = now;
            draw(now);
        }
    }

    void finish() {
        if (enabled) {
            draw(System.nanoTime());
            out.println();
        }
    }

    private void draw(long now) {
        double secs = Math.max(1e-3, (now - startNanos) / 1e9);
        double rate = done / secs / (1 << 20);
        StringBuilder sb = new StringBuilder("\r").append(label).append(' ');
        if (total > 0) {
            int pct = (int) Math.min(100, done * 100 / total);
            int filled = pct * 30 / 100;
            sb.append('[').append("#".repeat(filled)).append(" ".repeat(30 - filled)).append("] ")
                    .append(String.format(Locale.ROOT, "%3d%% ", pct))
                    .append(ConfValues.formatSize(done)).append(" / ").append(ConfValues.formatSize(total));
        } else {
            sb.append(ConfValues.formatSize(done));
        }
        sb.append(String.format(Locale.ROOT, "  %.1f MiB/s ", rate));
        out.print(sb);
        out.flush();
    }
}
