package io.creel.bench.process;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command to its end and measures its wall time, from the start of the process to its
 * exit (process creation included, as a shell's {@code time} would count it). A command that
 * fails or outlives its timeout is an error naming the command and quoting the end of what it
 * printed; one that outlives its timeout is killed first.
 */
public final class TimedCommand {
    /** How much of a failed command's output the error quotes. */
    private static final int TAIL = 2000;

    /**
     * What a run came to.
     *
     * @param nanos  wall time from start to exit
     * @param output the end of what the command printed (stdout unless discarded, and stderr)
     */
    public record Result(long nanos, String output) {
    }

    private TimedCommand() {
    }

    /**
     * Runs {@code command} with this process's environment changed by {@code env} (a null value
     * removes the variable) and standard input from /dev/null; with {@code discardStdout} its
     * standard output goes to /dev/null, as in {@code cat f > /dev/null}.
     */
    public static Result run(List<String> command, Map<String, String> env, boolean discardStdout, Duration timeout) {
        Path log = null;
        Process p = null;
        try {
            log = Files.createTempFile("creel-bench-cmd", ".log");
            // Both streams append, so neither overwrites what the other wrote.
            ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
            ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectError(toLog).redirectOutput(discardStdout ? ProcessBuilder.Redirect.DISCARD : toLog);
            env.forEach((k, v) -> {
                if (v == null) {
                    pb.environment().remove(k);
                } else {
                    pb.environment().put(k, v);
                }
            });
            long t0 = System.nanoTime();
            p = pb.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new CreelException(ErrorCode.TIMEOUT, describe(command) + " did not finish within "
                        + timeout.toSeconds() + " s; killed. It printed: " + tail(log));
            }
            long nanos = System.nanoTime() - t0;
            String output = tail(log);
            if (p.exitValue() != 0) {
                throw new CreelException(ErrorCode.INTERNAL, describe(command) + " failed with exit code "
                        + p.exitValue() + ": " + output);
            }
            return new Result(nanos, output);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.INTERNAL, "cannot run " + describe(command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (p != null) {
                p.destroyForcibly();
            }
            throw new CreelException(ErrorCode.UNAVAILABLE, "interrupted while running " + describe(command));
        } finally {
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    System.err.println("bench: cannot remove " + log + ": " + e.getMessage());
                }
            }
        }
    }

    /** The command as a reader would type it (the class path, often very long, abridged). */
    public static String describe(List<String> command) {
        StringBuilder sb = new StringBuilder("'");
        for (int i = 0; i < command.size(); i++) {
            String a = command.get(i);
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(i > 0 && command.get(i - 1).equals("-cp") && a.length() > 60 ? "<class path>" : a);
        }
        return sb.append("'").toString();
    }

    private static String tail(Path log) throws IOException {
        String s = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).strip();
        if (s.isEmpty()) {
            return "(nothing)";
        }
        return s.length() > TAIL ? "..." + s.substring(s.length() - TAIL) : s;
    }
}
