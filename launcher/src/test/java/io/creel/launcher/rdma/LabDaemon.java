package io.creel.launcher.rdma;

import io.creel.launcher.CreelMain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Creel daemon ({@code bin/creel namenode}, {@code datanode}) in a JVM of its own, started the way
 * bin/creel starts it with RDMA: DiSNI's JVM flag, the library path of this JVM (libdisni.so), DiSNI
 * at WARN. Its output goes to a log file; the test waits for its "ready" line and can kill it with
 * SIGKILL.
 */
final class LabDaemon implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    private LabDaemon(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code CreelMain args...}, logging to {@code logDir/name.log}. */
    static LabDaemon start(String name, Path logDir, Path confDir, List<String> args) throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx320m");
        String crashes = System.getenv("CREEL_LAB_CRASHES");
        if (crashes != null) {
            // Where the lab's runner looks for crash logs (lab/vm/jit-crash-retry.sh).
            cmd.add("-XX:ErrorFile=" + crashes + "/hs_err_pid%p.log");
        }
        cmd.add("--add-exports");
        cmd.add("java.base/sun.nio.ch=ALL-UNNAMED");
        cmd.add("-Djava.library.path=" + System.getProperty("java.library.path"));
        cmd.add("-Dorg.slf4j.simpleLogger.log.com.ibm=warn");
        cmd.add("-Dcreel.conf.dir=" + confDir);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CreelMain.class.getName());
        cmd.addAll(args);
        Files.writeString(log, "# " + String.join(" ", cmd) + "\n");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().remove("CREEL_CONF_DIR");
        return new LabDaemon(name, pb.start(), log);
    }

    /** Waits until the log has a line containing {@code text}; fails naming the daemon and its log's tail. */
    String awaitLine(String text, long timeoutSeconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (System.nanoTime() < deadline) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.contains(text)) {
                    return line;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " before saying '" + text
                        + "':\n" + tail());
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(name + " did not say '" + text + "' within " + timeoutSeconds + " s:\n" + tail());
    }

    /** The last lines of the log, for failure messages. */
    String tail() throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** SIGKILL: no goodbye to anyone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the daemon (SIGTERM, then SIGKILL after 20 s). */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
