package io.creel.bench.cluster;

import io.creel.minicluster.MiniCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The cluster process a bench run starts ({@link ClusterProcess} is the bench's side): the same
 * {@code MiniCluster} as {@code bin/creel local} — a namenode, a DRAM and a disk storage server —
 * on a free port, in the directories it is given; it removes those named by {@code --remove-at-exit}
 * when it stops (the bench removes them too, but a bench killed with SIGKILL cannot). It speaks
 * {@link ControlLine} on standard input and output; everything else it prints goes to standard
 * error (the bench's log file). It stops when asked, when its input ends (the bench is gone,
 * however it ended), or on SIGTERM/SIGINT.
 *
 * <p>Arguments: {@code --dram BYTES --disk BYTES --dram-dir DIR --disk-dir DIR [--set KEY=VALUE]...
 * [--remove-at-exit DIR]...}
 */
public final class ClusterProcessMain {
    private ClusterProcessMain() {
    }

    public static void main(String[] args) {
        PrintStream control = System.out;
        System.setOut(System.err); // nothing but control lines on the bench's pipe
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "info");
        setIfAbsent("org.slf4j.simpleLogger.log.io.netty", "warn");
        setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        MiniCluster.Builder b = MiniCluster.builder();
        List<Path> dirs = new ArrayList<>();
        long dram = 0;
        long disk = 0;
        int dramServers = -1;
        int hosts = 1;
        try {
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                if (value == null) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                switch (args[i]) {
                    case "--dram" -> dram = nonNegative("--dram", value);
                    case "--disk" -> disk = nonNegative("--disk", value);
                    case "--dram-servers" -> dramServers = (int) nonNegative("--dram-servers", value);
                    case "--hosts" -> hosts = (int) nonNegative("--hosts", value);
                    case "--size-classes" -> b.sizeClasses(java.util.Arrays.stream(value.split(","))
                            .mapToLong(v -> nonNegative("--size-classes", v)).toArray());
                    case "--size-class-dram" -> b.sizeClassDram(nonNegative("--size-class-dram", value));
                    case "--dram-dir" -> b.dramDir(Path.of(value));
                    case "--disk-dir" -> b.diskDir(Path.of(value));
                    case "--remove-at-exit" -> dirs.add(Path.of(value));
                    case "--set" -> {
                        int eq = value.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--set needs KEY=VALUE, got '" + value + "'");
                        }
                        b.set(value.substring(0, eq), value.substring(eq + 1));
                    }
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                }
                i++;
            }
        } catch (IllegalArgumentException e) {
            control.println(ControlLine.error("bad arguments: " + e.getMessage()));
            control.flush();
            dirs.forEach(ClusterProcess::deleteTree);
            System.exit(2);
            return;
        }
        b.dram(dram).disk(disk).servers(dramServers >= 0 ? dramServers : dram > 0 ? 1 : 0, disk > 0 ? 1 : 0)
                .hosts(Math.max(1, hosts));
        MiniCluster cluster;
        try {
            cluster = b.start();
        } catch (RuntimeException e) {
            e.printStackTrace();
            control.println(ControlLine.error("the cluster did not start: " + e.getMessage()));
            control.flush();
            dirs.forEach(ClusterProcess::deleteTree);
            System.exit(1);
            return;
        }
        AtomicBoolean stopped = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopped.compareAndSet(false, true)) {
                try {
                    cluster.close();
                } finally {
                    dirs.forEach(ClusterProcess::deleteTree);
                }
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "bench-cluster-shutdown"));
        control.println(ControlLine.ready(cluster.address().toUri(), ProcessHandle.current().pid()));
        control.flush();
        serve(control, stop);
        System.exit(0);
    }

    /** Answers the bench's requests until it asks to stop or its end of the pipe closes. */
    private static void serve(PrintStream control, Runnable stop) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String request = line.trim();
                if (request.equals(ControlLine.STOP_REQUEST)) {
                    break;
                } else if (request.equals(ControlLine.MEMORY_REQUEST)) {
                    control.println(ControlLine.memory(MemoryUse.measureAfterGc()));
                } else {
                    control.println(ControlLine.error("unknown request '" + request + "'"));
                }
                control.flush();
            }
        } catch (IOException e) {
            System.err.println("bench cluster: reading requests failed (" + e + "); stopping");
        }
        stop.run();
        control.println(ControlLine.STOPPED);
        control.flush();
    }

    private static long nonNegative(String option, String value) {
        try {
            long v = Long.parseLong(value);
            if (v < 0) {
                throw new IllegalArgumentException(option + " " + value + " is negative");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " '" + value + "' is not a number of bytes", e);
        }
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
