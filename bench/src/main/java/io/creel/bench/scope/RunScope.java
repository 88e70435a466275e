package io.creel.bench.scope;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * What one bench run started or made (the cluster process, Redis, clients, its nodes, temporary
 * files), undone in reverse order exactly once: when the run ends, whether it succeeded or failed,
 * or — from a shutdown hook — when the bench is interrupted (Ctrl-C, SIGTERM). Each undo is
 * independent: one that fails is reported and the others still run.
 */
public final class RunScope implements AutoCloseable {
    private record Entry(String what, AutoCloseable resource) {
    }

    private final PrintStream err;
    private final Deque<Entry> entries = new ArrayDeque<>();
    private final Thread hook;
    private boolean closed;

    /** A scope that reports problems to {@code err} and undoes everything if the JVM is shut down first. */
    public RunScope(PrintStream err) {
        this.err = err;
        this.hook = new Thread(() -> {
            List<String> failures = undo();
            if (!failures.isEmpty()) {
                err.println("bench: interrupted; cleaning up: " + String.join("; ", failures));
            }
        }, "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Registers {@code resource}, to be closed when the run ends; returns it. */
    public synchronized <T extends AutoCloseable> T add(String what, T resource) {
        if (closed) {
            throw new IllegalStateException("the run is over; cannot keep " + what);
        }
        entries.push(new Entry(what, resource));
        return resource;
    }

    /**
     * Undoes everything registered, newest first, and returns what failed (empty when all went
     * well). Later calls do nothing and return nothing.
     */
    public List<String> closeAndReport() {
        List<String> failures = undo();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook has run or is running undo() itself.
        }
        return failures;
    }

    /** {@link #closeAndReport()}, printing failures as warnings. */
    @Override
    public void close() {
        closeAndReport().forEach(f -> err.println("bench: " + f));
    }

    private synchronized List<String> undo() {
        if (closed) {
            return List.of();
        }
        closed = true;
        List<String> failures = new ArrayList<>();
        while (!entries.isEmpty()) {
            Entry e = entries.pop();
            try {
                e.resource().close();
            } catch (Exception ex) {
                failures.add("cleaning up " + e.what() + " failed: " + ex.getMessage());
            }
        }
        return failures;
    }
}
