package io.creel.bench.modes.ycsb;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of YCSB's client ({@value #CLIENT}) in a JVM of its own, so the client is a separate
 * process from every server it measures and YCSB's process-wide state (its measurements are
 * static) starts fresh each run. The child gets this JVM's class path, which must hold YCSB's core
 * and the DB class ({@code bin/creel} has both); its summary is read into a {@link YcsbResult}.
 * A run that outlives its time limit is killed and reported as a TIMEOUT naming the run.
 */
public final class YcsbProcess {
    /** YCSB's command-line entry point. */
    public static final String CLIENT = "site.ycsb.Client";
    /** The Creel binding's DB class (module ycsb-binding; named here, not linked: same layer). */
    public static final String CREEL_DB = "io.creel.ycsb.CreelDB";
    /** The Redis DB class of the comparison (module ycsb-binding). */
    public static final String REDIS_DB = "io.creel.ycsb.redis.RedisHashDB";
    /** Class-path folder of the standard workload files (module ycsb-binding). */
    public static final String WORKLOAD_RESOURCES = "io/creel/ycsb/workloads/";

    private final String db;
    private final boolean load;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final List<String> jvmOptions = new ArrayList<>();
    private int threads = 1;
    private String classPath = System.getProperty("java.class.path");
    private PrintStream echo;
    private boolean inheritStderr;
    private String label = "";

    private YcsbProcess(String db, boolean load) {
        this.db = db;
        this.load = load;
    }

    /** A load phase ({@code -load}) of {@code db}. */
    public static YcsbProcess load(String db) {
        return new YcsbProcess(db, true);
    }

    /** A transaction phase ({@code -t}) of {@code db}. */
    public static YcsbProcess run(String db) {
        return new YcsbProcess(db, false);
    }

    /** A YCSB property ({@code -p key=value}); later ones win. */
    public YcsbProcess property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    /** Every property of {@code props}, in order. */
    public YcsbProcess properties(Map<String, String> props) {
        properties.putAll(props);
        return this;
    }

    public YcsbProcess threads(int n) {
        if (n < 1) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "YCSB needs at least one client thread, not " + n);
        }
        this.threads = n;
        return this;
    }

    /** An option of the child JVM (heap size, a system property). */
    public YcsbProcess jvmOption(String option) {
        jvmOptions.add(option);
        return this;
    }

    /** The child's class path (default: this JVM's). */
    public YcsbProcess classPath(String cp) {
        this.classPath = cp;
        return this;
    }

    /** Also copies the child's standard output, line by line, to {@code out}. */
    public YcsbProcess echo(PrintStream out) {
        this.echo = out;
        return this;
    }

    /** Lets the child write its standard error to ours (progress and log lines), instead of keeping its tail. */
    public YcsbProcess inheritStderr() {
        this.inheritStderr = true;
        return this;
    }

    /** The child's command line. */
    public List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(CLIENT);
        cmd.add(load ? "-load" : "-t");
        cmd.add("-db");
        cmd.add(db);
        cmd.add("-threads");
        cmd.add(Integer.toString(threads));
        for (Map.Entry<String, String> p : properties.entrySet()) {
            cmd.add("-p");
            cmd.add(p.getKey() + "=" + p.getValue());
        }
        return cmd;
    }

    /** Names the run in messages, e.g. "workload b". */
    public YcsbProcess label(String text) {
        this.label = text;
        return this;
    }

    /** What this run is, for messages: "YCSB run of io.creel.ycsb.CreelDB (workload b)". */
    public String describe() {
        return "YCSB " + (load ? "load" : "run") + " of " + db + (label.isEmpty() ? "" : " (" + label + ")");
    }

    /**
     * Runs the child to its end, at most {@code limit}; returns what it reported. Its standard
     * error goes to a file whose last lines are quoted if it fails to report.
     */
    public YcsbResult start(Duration limit) {
        Path stderr = null;
        try {
            ProcessBuilder pb = new ProcessBuilder(command());
            if (inheritStderr) {
                pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            } else {
                stderr = Files.createTempFile("creel-ycsb-", ".stderr");
                pb.redirectError(stderr.toFile());
            }
            Process p = pb.start();
            // Ctrl-C on this process must not leave the client running on its own.
            Thread reaper = new Thread(() -> kill(p), "ycsb-reaper");
            Runtime.getRuntime().addShutdownHook(reaper);
            try {
                return await(p, limit, stderr);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(reaper);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or about to: it kills the child
                }
            }
        } catch (IOException e) {
            throw new CreelException(ErrorCode.INTERNAL, describe() + ": cannot start the client JVM: " + e.getMessage(),
                    e);
        } finally {
            if (stderr != null) {
                try {
                    Files.deleteIfExists(stderr);
                } catch (IOException e) {
                    System.err.println("bench: cannot remove " + stderr + ": " + e.getMessage());
                }
            }
        }
    }

    private YcsbResult await(Process p, Duration limit, Path stderr) throws IOException {
        p.getOutputStream().close();
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> readLines(p, lines), "ycsb-stdout");
        reader.setDaemon(true);
        reader.start();
        boolean ended;
        try {
            ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                kill(p);
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            kill(p);
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.INTERNAL, describe() + " was interrupted");
        }
        if (!ended) {
            throw new CreelException(ErrorCode.TIMEOUT, describe() + " did not finish within " + limit.toSeconds()
                    + " s and was killed" + tail(stderr));
        }
        YcsbResult result;
        synchronized (lines) {
            result = YcsbResult.parse(lines);
        }
        if (!result.complete()) {
            throw new CreelException(ErrorCode.INTERNAL, describe() + " exited (code " + p.exitValue()
                    + ") without its summary" + tail(stderr));
        }
        return stderr == null ? result : result.withLog(lastLines(stderr));
    }

    private void readLines(Process p, List<String> lines) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                }
                if (echo != null) {
                    echo.println(line);
                }
            }
        } catch (IOException e) {
            // The child was killed or its pipe broke: what was read is parsed, and a missing summary is reported.
            synchronized (lines) {
                lines.add("# stdout of the YCSB client ended: " + e.getMessage());
            }
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines of the child's standard error, for a failure message. */
    private static String tail(Path stderr) {
        if (stderr == null) {
            return "";
        }
        List<String> last = lastLines(stderr);
        return last.isEmpty() ? "" : "; its last lines of standard error:\n  " + String.join("\n  ", last);
    }

    private static List<String> lastLines(Path stderr) {
        try {
            // YCSB's wrapper prints one settings line per thread; the lines that say what went wrong are the others.
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.startsWith("DBWrapper:")).toList();
            return List.copyOf(all.subList(Math.max(0, all.size() - 15), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return List.of("(its standard error could not be read: " + e.getMessage() + ")");
        }
    }
}
