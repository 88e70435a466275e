package io.creel.bench;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The progress line on stderr: which point is being measured and how many operations it has done.
 * On a terminal the line is redrawn in place twice a second; otherwise each point is named once.
 */
public final class Progress implements AutoCloseable {
    private final PrintStream err;
    private final boolean terminal;
    private final ScheduledExecutorService timer;
    private ScheduledFuture<?> ticking;
    private String label = "";
    private LongSupplier done = () -> 0;
    private long startNanos;

    public Progress(PrintStream err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-progress");
            t.setDaemon(true);
            return t;
        });
        if (terminal) {
            ticking = timer.scheduleAtFixedRate(this::draw, 500, 500, TimeUnit.MILLISECONDS);
        }
    }

    /** Starts a point named {@code what}; {@code ops} counts its completed operations. */
    public synchronized void point(String what, LongSupplier ops) {
        label = what;
        done = ops;
        startNanos = System.nanoTime();
        if (terminal) {
            draw();
        } else {
            err.println("bench: " + what);
        }
    }

    /** Starts a point without an operation count. */
    public void point(String what) {
        point(what, () -> -1);
    }

    private synchronized void draw() {
        long n = done.getAsLong();
        double s = (System.nanoTime() - startNanos) / 1e9;
        String line = n < 0 ? String.format("bench: %s  %.0fs", label, s)
                : String.format("bench: %s  %,d ops  %.1fs", label, n, s);
        err.print("\r\033[K" + line);
        err.flush();
    }

    @Override
    public synchronized void close() {
        if (ticking != null) {
            ticking.cancel(false);
            err.print("\r\033[K");
            err.flush();
        }
        timer.shutdownNow();
    }
}
