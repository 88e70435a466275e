package io.creel.multihost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real process running in a lab host's namespace, its stdout and stderr going to one log file.
 *
 * <p>{@link #waitForLine} reads the log with a cursor: each call looks at the lines after the last
 * line an earlier call matched, so a test can wait for the same kind of line again and again.
 */
public final class HostProcess {
    private static final Logger LOG = LoggerFactory.getLogger(HostProcess.class);

    private final String name;
    private final NetworkLab.Host host;
    private final Process process;
    private final Path log;
    private final long startNanos;
    private int cursor;

    private HostProcess(String name, NetworkLab.Host host, Process process, Path log) {
        this.name = name;
        this.host = host;
        this.process = process;
        this.log = log;
        this.startNanos = System.nanoTime();
    }

    static HostProcess start(String name, NetworkLab.Host host, List<String> command, java.util.Map<String, String> env,
                             Path log) {
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "# " + String.join(" ", command) + "\n");
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().putAll(env);
            Process p = pb
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
            LOG.info("started {} on {} as pid {}", name, host, p.pid());
            return new HostProcess(name, host, p, log);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + name + ": " + e, e);
        }
    }

    public String name() {
        return name;
    }

    public NetworkLab.Host host() {
        return host;
    }

    public long pid() {
        return process.pid();
    }

    public Path logFile() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Time since the process was started. */
    public Duration age() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** Everything the process printed so far. */
    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /**
     * Waits for the next line (after the last one matched) that contains a match of {@code regex},
     * and returns the match. Fails if the process exits without printing one, or after {@code timeout}.
     */
    public synchronized Matcher waitForLine(String regex, Duration timeout) {
        Pattern pattern = Pattern.compile(regex);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean exited = !process.isAlive(); // read after this, so the last lines are in the file
            List<String> lines = output().lines().toList();
            for (int i = cursor; i < lines.size(); i++) {
                Matcher m = pattern.matcher(lines.get(i));
                if (m.find()) {
                    cursor = i + 1;
                    return m;
                }
            }
            if (exited) {
                throw new AssertionError(name + " exited (code " + process.exitValue() + ") without printing a line "
                        + "matching /" + regex + "/; its log:\n" + tail(40));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " printed no line matching /" + regex + "/ within "
                        + timeout.toMillis() + " ms; its log:\n" + tail(40));
            }
            sleep(25);
        }
    }

    /** Waits for the process to exit and returns its exit code; fails after {@code timeout}. */
    public int waitForExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(name + " still runs after " + timeout.toMillis() + " ms; its log:\n"
                        + tail(40));
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + name, e);
        }
    }

    /** SIGKILL, then waits until the process is gone. */
    public void kill9() {
        if (process.isAlive()) {
            LOG.info("kill -9 {} (pid {})", name, process.pid());
        }
        process.destroyForcibly();
        awaitGone(Duration.ofSeconds(10));
    }

    /** SIGTERM (the daemons close cleanly), then SIGKILL if it is not gone within {@code grace}. */
    public void stop(Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} did not stop within {} ms of SIGTERM; killing it", name, grace.toMillis());
                kill9();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill9();
        }
    }

    private void awaitGone(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} (pid {}) is still there {} ms after SIGKILL", name, process.pid(), timeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last {@code n} lines of the log. */
    public String tail(int n) {
        List<String> lines = output().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return name + "@" + host;
    }
}
