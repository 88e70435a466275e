package io.creel.bench.modes.ycsb;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of {@code bench ycsb} (a picocli mixin of the bench command). */
public final class YcsbOptions {
    @Option(names = "--ycsb-workloads", split = ",", paramLabel = "W[,W...]", defaultValue = "a,b,c,f,d,e",
            description = "YCSB core workloads to run, in this order after one load (default: ${DEFAULT-VALUE}; "
                    + "D and E insert, so they go last; with e, Creel's Table is ordered and Redis keeps its scan "
                    + "index in every workload).")
    List<String> workloads;

    @Option(names = "--ycsb-records", paramLabel = "N", defaultValue = "100000",
            description = "Records loaded into each store, 10 fields of 100 bytes each (default: ${DEFAULT-VALUE}).")
    int records;

    @Option(names = "--ycsb-operations", paramLabel = "N", defaultValue = "100000",
            description = "Operations of each workload run (default: ${DEFAULT-VALUE}).")
    int operations;

    @Option(names = "--ycsb-threads", paramLabel = "N", defaultValue = "16",
            description = "YCSB client threads, the same for both stores (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--ycsb-timeout", paramLabel = "DURATION", defaultValue = "10m",
            description = "Longest one YCSB client run may take before it is killed (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Option(names = "--ycsb-jvm-option", paramLabel = "OPTION",
            description = "An option of the YCSB client JVMs (repeatable), e.g. -XX:StartFlightRecording=filename=c.jfr.")
    List<String> jvmOptions = new java.util.ArrayList<>();

    @Option(names = "--ycsb-chart", paramLabel = "FILE",
            description = "Draw the YCSB comparison (throughput and latency ratios per workload) into this PNG.")
    Path chart;

    /** For picocli. */
    public YcsbOptions() {
    }

    /** Options given in code (tests). */
    public YcsbOptions(List<String> workloads, int records, int operations, int threads, String timeout, Path chart) {
        this.workloads = workloads;
        this.records = records;
        this.operations = operations;
        this.threads = threads;
        this.timeout = timeout;
        this.chart = chart;
    }
}
