package io.creel.bench.cluster;

import io.creel.bench.process.JavaCommand;
import io.creel.bench.process.TimedCommand;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The default cluster of a bench run: a namenode, a DRAM and a disk storage server in a process
 * of their own ({@link ClusterProcessMain}, the same {@code MiniCluster} {@code bin/creel local}
 * runs, with this JVM's options), on a free port, with its files in fresh temporary directories
 * and its log in a temporary file. {@link #close} stops it and removes them, also after a failed
 * start (whose error quotes the log); the child
 * stops by itself when the bench's end of its standard input closes, so even a bench killed with
 * SIGKILL leaves no cluster running.
 */
public final class ClusterProcess implements BenchCluster {
    /** How long a cluster may take to stop when asked, and then when terminated, before it is killed. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    /** How long a full collection in a large namenode heap may take. */
    private static final Duration MEMORY_TIMEOUT = Duration.ofMinutes(5);
    private static final int LOG_TAIL = 3000;

    /**
     * What to start.
     *
     * @param dramBytes  size of the DRAM storage server (none if 0)
     * @param diskBytes  size of the disk storage server (none if 0)
     * @param settings   configuration keys for the cluster and its clients (no namenode address)
     * @param jvmOptions JVM options added after the inherited ones (e.g. a larger heap, a flight recording)
     */
    /**
     * @param dramBytes   bytes of each DRAM server
     * @param dramServers DRAM servers (each of {@code dramBytes})
     * @param hosts       loopback hosts the servers spread over (copies of a block go to different ones)
     * @param sizeClasses block sizes of the size-class DRAM servers started next to each DRAM server
     * @param sizeClassDram bytes of each size-class server, or -1 for {@code dramBytes}
     */
    public record Spec(long dramBytes, long diskBytes, Map<String, String> settings, List<String> jvmOptions,
                       int dramServers, int hosts, List<Long> sizeClasses, long sizeClassDram) {
        public Spec {
            settings = Map.copyOf(settings);
            jvmOptions = List.copyOf(jvmOptions);
            sizeClasses = List.copyOf(sizeClasses);
        }

        /** No size-class servers. */
        public Spec(long dramBytes, long diskBytes, Map<String, String> settings, List<String> jvmOptions,
                    int dramServers, int hosts) {
            this(dramBytes, diskBytes, settings, jvmOptions, dramServers, hosts, List.of(), -1);
        }

        /** One DRAM server (if any DRAM) and one disk server (if any disk), on one host. */
        public Spec(long dramBytes, long diskBytes, Map<String, String> settings, List<String> jvmOptions) {
            this(dramBytes, diskBytes, settings, jvmOptions, dramBytes > 0 ? 1 : 0, 1);
        }
    }

    private final Process process;
    private final Writer control;
    private final BlockingQueue<Optional<String>> lines;
    private final List<Path> directories;
    private final Path log;
    private final CreelConf clientConf;
    private final ControlLine.Ready ready;
    private final List<String> jvmOptions;
    private final Duration stopTimeout;
    private boolean closed;

    private ClusterProcess(Process process, Writer control, BlockingQueue<Optional<String>> lines,
                           List<Path> directories, Path log, CreelConf clientConf, ControlLine.Ready ready,
                           List<String> jvmOptions, Duration stopTimeout) {
        this.process = process;
        this.control = control;
        this.lines = lines;
        this.directories = directories;
        this.log = log;
        this.clientConf = clientConf;
        this.ready = ready;
        this.jvmOptions = jvmOptions;
        this.stopTimeout = stopTimeout;
    }

    /** Starts a cluster process for {@code spec} and waits until it serves (at most {@code startTimeout}). */
    public static ClusterProcess start(Spec spec, Duration startTimeout) {
        List<Path> dirs = new ArrayList<>();
        try {
            Path work = Files.createTempDirectory("creel-bench-cluster");
            dirs.add(work);
            Path disk = Files.createDirectory(work.resolve("disk"));
            Path shm = Path.of("/dev/shm");
            Path dram;
            if (Files.isDirectory(shm) && Files.isWritable(shm)) {
                dram = Files.createTempDirectory(shm, "creel-bench-cluster");
                dirs.add(dram);
            } else {
                dram = Files.createDirectory(work.resolve("dram"));
            }
            List<String> args = new ArrayList<>(List.of("--dram", Long.toString(spec.dramBytes()), "--disk",
                    Long.toString(spec.diskBytes()), "--dram-dir", dram.toString(), "--disk-dir", disk.toString(),
                    "--dram-servers", Integer.toString(spec.dramServers()), "--hosts", Integer.toString(spec.hosts())));
            if (!spec.sizeClasses().isEmpty()) {
                args.add("--size-classes");
                args.add(String.join(",", spec.sizeClasses().stream().map(String::valueOf).toList()));
            }
            if (spec.sizeClassDram() >= 0) {
                args.add("--size-class-dram");
                args.add(Long.toString(spec.sizeClassDram()));
            }
            spec.settings().forEach((k, v) -> {
                args.add("--set");
                args.add(k + "=" + v);
            });
            for (Path d : dirs) {
                args.add("--remove-at-exit");
                args.add(d.toString());
            }
            List<String> cmd = JavaCommand.of(ClusterProcessMain.class, spec.jvmOptions(), args);
            List<String> shown = cmd.subList(1, cmd.indexOf("-cp"));
            // The log is not inside the directories the child removes: a failed start's log outlives the child.
            Path log = Files.createTempFile("creel-bench-cluster", ".log");
            dirs.add(log);
            return start(cmd, dirs, log, spec.settings(), startTimeout, STOP_TIMEOUT, shown);
        } catch (IOException e) {
            dirs.forEach(ClusterProcess::deleteTree);
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot make the bench cluster's temporary directories: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Starts {@code command}, which must speak {@link ControlLine}, logging to {@code log}; on any
     * failure the process is stopped and {@code directories} (and files) are removed before the
     * error is thrown. {@code stopTimeout} is how long each step of stopping it may take.
     */
    static ClusterProcess start(List<String> command, List<Path> directories, Path log, Map<String, String> settings,
                                Duration startTimeout, Duration stopTimeout, List<String> jvmOptions) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        } catch (IOException e) {
            directories.forEach(ClusterProcess::deleteTree);
            throw new CreelException(ErrorCode.UNAVAILABLE, "cannot start the bench cluster process "
                    + TimedCommand.describe(command) + ": " + e.getMessage(), e);
        }
        BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> readLines(p, lines), "bench-cluster-control-" + p.pid());
        reader.setDaemon(true);
        reader.start();
        Writer control = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        try {
            long deadline = System.nanoTime() + startTimeout.toNanos();
            String first = awaitLine(lines, startTimeout, p, log, "to start");
            // A JVM agent given in --cluster-jvm-opts may print to standard output before the cluster
            // speaks (async-profiler's "Profiling started"): such lines are passed over, within the timeout.
            while (ControlLine.parseError(first).isEmpty() && ControlLine.parseReady(first).isEmpty()) {
                System.err.println("bench: the cluster process printed before READY: " + first);
                first = awaitLine(lines, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())), p, log, "to start");
            }
            String line = first;
            Optional<String> error = ControlLine.parseError(line);
            if (error.isPresent()) {
                throw new CreelException(ErrorCode.UNAVAILABLE, "the bench cluster process (pid " + p.pid()
                        + ") failed to start: " + error.get() + logTail(log));
            }
            ControlLine.Ready ready = ControlLine.parseReady(line).orElseThrow(() -> new CreelException(
                    ErrorCode.INTERNAL, "the bench cluster process (pid " + p.pid() + ") said '" + line
                    + "' instead of READY"));
            Map<String, String> conf = new LinkedHashMap<>(settings);
            conf.put(ConfKeys.NAMENODE_ADDRESS.name(), ready.address());
            return new ClusterProcess(p, control, lines, List.copyOf(directories), log, CreelConf.of(conf), ready,
                    List.copyOf(jvmOptions), stopTimeout);
        } catch (RuntimeException e) {
            stop(p, control, stopTimeout);
            directories.forEach(ClusterProcess::deleteTree);
            throw e;
        }
    }

    @Override
    public CreelConf clientConf() {
        return clientConf;
    }

    /** The cluster's process id. */
    public long pid() {
        return ready.pid();
    }

    /** The directories and files this cluster's files live in, removed at {@link #close}. */
    List<Path> directories() {
        return directories;
    }

    /** Whether the cluster's process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public String description() {
        List<String> shown = jvmOptions.stream().filter(o -> o.startsWith("-X")).toList();
        return "its own process (pid " + ready.pid() + ", started by the bench"
                + (shown.isEmpty() ? "" : ", " + String.join(" ", shown)) + ") at " + ready.address();
    }

    @Override
    public synchronized Optional<MemoryUse> namenodeMemory() {
        if (closed) {
            throw new CreelException(ErrorCode.UNAVAILABLE, "the bench cluster process is stopped");
        }
        send(ControlLine.MEMORY_REQUEST);
        String line = awaitLine(lines, MEMORY_TIMEOUT, process, log, "to report its memory");
        try {
            return Optional.of(ControlLine.parseMemory(line));
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.INTERNAL, "the bench cluster process (pid " + ready.pid()
                    + ") answered the memory request with: " + line, e);
        }
    }

    /** Stops the cluster (asking, then terminating, then killing) and removes its directories. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop(process, control, stopTimeout);
        } finally {
            directories.forEach(ClusterProcess::deleteTree);
        }
    }

    private void send(String request) {
        try {
            control.write(request + "\n");
            control.flush();
        } catch (IOException e) {
            throw new CreelException(ErrorCode.UNAVAILABLE, "cannot reach the bench cluster process (pid "
                    + ready.pid() + "; alive: " + process.isAlive() + "): " + e.getMessage() + logTail(log), e);
        }
    }

    /** Asks the child to stop and closes its input; terminates, then kills, what does not stop in time. */
    private static void stop(Process p, Writer control, Duration timeout) {
        try {
            if (p.isAlive()) {
                try {
                    control.write(ControlLine.STOP_REQUEST + "\n");
                    control.flush();
                } catch (IOException e) {
                    // The child's input is already closed: it is stopping or gone; waiting below tells which.
                }
            }
            try {
                control.close();
            } catch (IOException e) {
                // As above: nothing more to tell the child.
            }
            if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
            System.err.println("bench: the cluster process (pid " + p.pid() + ") did not stop within "
                    + timeout.toMillis() + " ms; terminating it");
            p.destroy();
            if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
            System.err.println("bench: the cluster process (pid " + p.pid() + ") ignored SIGTERM; killing it");
            p.destroyForcibly();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                System.err.println("bench: the cluster process (pid " + p.pid() + ") survived SIGKILL for "
                        + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
    }

    private static void readLines(Process p, BlockingQueue<Optional<String>> lines) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(Optional.of(line));
            }
        } catch (IOException e) {
            // The pipe broke: the child is gone; the end marker below says so to whoever waits.
        } finally {
            lines.add(Optional.empty());
        }
    }

    /** The child's next control line; an error naming what it was doing if it ends or takes too long. */
    private static String awaitLine(BlockingQueue<Optional<String>> lines, Duration timeout, Process p, Path log,
                                    String doing) {
        Optional<String> line;
        try {
            line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.UNAVAILABLE, "interrupted while waiting for the bench cluster process "
                    + "(pid " + p.pid() + ") " + doing);
        }
        if (line == null) {
            throw new CreelException(ErrorCode.TIMEOUT, "the bench cluster process (pid " + p.pid() + ") did not "
                    + "answer within " + timeout.toSeconds() + " s when asked " + doing + logTail(log));
        }
        if (line.isEmpty()) {
            lines.add(line); // every later wait sees the end too
            String code;
            try {
                code = p.waitFor(5, TimeUnit.SECONDS) ? "exit code " + p.exitValue() : "still running";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                code = "state unknown";
            }
            throw new CreelException(ErrorCode.UNAVAILABLE, "the bench cluster process (pid " + p.pid()
                    + ") closed its output (" + code + ") when asked " + doing + logTail(log));
        }
        return line.get();
    }

    private static String logTail(Path log) {
        try {
            if (!Files.exists(log)) {
                return "";
            }
            String s = Files.readString(log, StandardCharsets.UTF_8).strip();
            if (s.isEmpty()) {
                return "";
            }
            return "; its log ends: " + (s.length() > LOG_TAIL ? "..." + s.substring(s.length() - LOG_TAIL) : s);
        } catch (IOException | UncheckedIOException e) {
            return "; its log " + log + " cannot be read: " + e.getMessage();
        }
    }

    /** Removes a directory with everything in it, or a file; says so on stderr if it cannot. */
    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("bench: cannot remove " + dir + ": " + e);
        }
    }
}
