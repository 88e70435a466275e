package io.creel.bench.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a reader needs to know to compare a run with their own: the processor, memory, kernel,
 * Java, the bench JVM's options, and how busy the machine was (load average at start and end).
 */
public final class MachineFacts {
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");
    private static final Path MEMINFO = Path.of("/proc/meminfo");
    private static final Path LOADAVG = Path.of("/proc/loadavg");

    private MachineFacts() {
    }

    /** Adds the machine's and this JVM's facts to the report. */
    public static void describe(BenchReport report) {
        Runtime rt = Runtime.getRuntime();
        report.fact("cpus", rt.availableProcessors() + " (" + cpuModel() + ")");
        report.fact("memory", firstField(MEMINFO, "MemTotal:"));
        report.fact("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        report.fact("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-X")).toList();
        report.fact("bench JVM", "max heap " + (rt.maxMemory() >> 20) + " MiB"
                + (args.isEmpty() ? "" : ", " + String.join(" ", args)));
    }

    /** The 1, 5 and 15 minute load averages, e.g. "1.52 1.20 0.98", or why they are unknown. */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(LOADAVG).trim().split("\\s+");
            return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] + " (1, 5, 15 min)" : "unknown (" + LOADAVG
                    + " has " + f.length + " fields)";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String cpuModel() {
        String model = firstField(CPUINFO, "model name");
        return model.startsWith(":") ? model.substring(1).trim() : model;
    }

    /** The rest of the first line of {@code file} starting with {@code prefix}, trimmed. */
    private static String firstField(Path file, String prefix) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim();
                }
            }
            return "unknown (no " + prefix + " in " + file + ")";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
