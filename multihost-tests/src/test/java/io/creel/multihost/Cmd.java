package io.creel.multihost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs short system commands ({@code ip ...}) with a timeout and captures what they print. */
final class Cmd {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Cmd() {
    }

    /** What a finished command returned. */
    record Result(List<String> command, int exit, String output) {
        boolean ok() {
            return exit == 0;
        }
    }

    /** Runs {@code command}; a non-zero exit is returned, not thrown. */
    static Result run(String... command) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Result(List.of(command), 127, "cannot run " + command[0] + ": " + e.getMessage());
        }
        try {
            p.getOutputStream().close();
            // Outputs of ip commands are small; reading after the exit cannot block on a full pipe.
            if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                return new Result(List.of(command), 124, String.join(" ", command) + " did not finish within "
                        + TIMEOUT.toSeconds() + " s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(List.of(command), p.exitValue(), out);
        } catch (IOException e) {
            return new Result(List.of(command), 1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return new Result(List.of(command), 130, "interrupted");
        }
    }

    /** Runs {@code command} and fails with its output if it does not exit 0. */
    static String check(String... command) {
        Result r = run(command);
        if (!r.ok()) {
            throw new IllegalStateException("`" + String.join(" ", command) + "` exited " + r.exit() + ": "
                    + r.output().strip());
        }
        return r.output();
    }
}
