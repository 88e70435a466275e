package io.creel.bench;

import io.creel.bench.modes.BagBench;
import io.creel.bench.modes.BaselineBench;
import io.creel.bench.modes.KvBench;
import io.creel.bench.modes.MetaBench;
import io.creel.bench.modes.StreamBench;
import io.creel.bench.modes.ycsb.YcsbBench;
import io.creel.bench.modes.ycsb.YcsbOptions;
import io.creel.bench.report.BenchReport;
import io.creel.bench.report.Charts;
import io.creel.bench.report.Targets;
import io.creel.cli.CommonOptions;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeKeys;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.transport.TransportKeys;
import io.creel.storage.transport.TransportSelector;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code creel bench MODE...}: the paper's microbenchmarks against a cluster (or an in-process one
 * with {@code --local}) and this machine's limits, printed as a table with the target ratios.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure Creel and this machine's limits; print a table and the target ratios.",
                "Modes: baseline (loopback TCP, memory copy, Redis), kv (put/get latency by size), lookup and "
                        + "create (metadata ops/s by concurrency), read and write (sequential bandwidth by buffer), "
                        + "bag (a Bag read as one stream), ycsb (YCSB workloads, Creel vs Redis). They run in the order "
                        + "given."})
public final class BenchCommand implements Callable<Integer> {
    /** The modes, in the order they are run when several are given. */
    static final List<String> MODES = List.of("baseline", "kv", "lookup", "create", "read", "write", "bag", "ycsb");

    @Mixin
    CommonOptions common;

    @Mixin
    YcsbOptions ycsb;

    @Parameters(arity = "1..*", paramLabel = "MODE",
            description = "baseline, kv, lookup, create, read, write, bag, ycsb")
    List<String> modes;

    @Option(names = "--local", description = "Start a namenode with a DRAM and a disk storage server in this process.")
    boolean local;

    @Option(names = "--clients", split = ",", paramLabel = "N[,N...]", defaultValue = "1,50",
            description = "Concurrent clients of lookup/create/Redis runs (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(names = "--in-flight", split = ",", paramLabel = "N[,N...]", defaultValue = "1,16",
            description = "Operations in flight per client (default: ${DEFAULT-VALUE}).")
    List<Integer> inFlight;

    @Option(names = "--sizes", split = ",", paramLabel = "SIZE[,SIZE...]", defaultValue = "4,256,1k,64k,1m,16m,128m",
            description = "kv value sizes (default: ${DEFAULT-VALUE}).")
    List<String> sizes;

    @Option(names = "--buffers", split = ",", paramLabel = "SIZE[,SIZE...]", defaultValue = "1k,4k,16k,64k,256k,1m",
            description = "Application buffer sizes of read/write and of the socket baseline (default: ${DEFAULT-VALUE}).")
    List<String> buffers;

    @Option(names = "--class", paramLabel = "dram|disk", defaultValue = "dram",
            description = "Storage class of the benchmark's data (default: ${DEFAULT-VALUE}).")
    String storageClass;

    @Option(names = "--tcp", description = "Measure only the TCP path (creel.client.local.access=false).")
    boolean tcp;

    @Option(names = "--transport", paramLabel = "NAME", description = "Move block data over this transport only "
            + "(rdma, tcp, mapped, local-file): the run fails at once, saying why, where it cannot be used, and "
            + "measures that one data path.")
    String transport;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "10000",
            description = "Nodes preloaded into the namespace before lookups (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "2s",
            description = "Time per measured point (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--ops", paramLabel = "N", defaultValue = "100000000",
            description = "At most this many operations per point (default: ${DEFAULT-VALUE}).")
    long ops;

    @Option(names = "--file-size", paramLabel = "SIZE", defaultValue = "256m",
            description = "Size of the read/write File (default: ${DEFAULT-VALUE}).")
    String fileSize;

    @Option(names = "--bag-files", paramLabel = "N", defaultValue = "256",
            description = "Files in the bag mode's Bag (default: ${DEFAULT-VALUE}).")
    int bagFiles;

    @Option(names = "--bag-file-size", paramLabel = "SIZE", defaultValue = "256k",
            description = "Size of each of the Bag's files (default: ${DEFAULT-VALUE}).")
    String bagFileSize;

    @Option(names = "--dram", paramLabel = "SIZE", defaultValue = "3g",
            description = "DRAM tier of the --local cluster (default: ${DEFAULT-VALUE}).")
    String dram;

    @Option(names = "--disk", paramLabel = "SIZE", defaultValue = "4g",
            description = "Disk tier of the --local cluster (default: ${DEFAULT-VALUE}).")
    String disk;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON.")
    Path json;

    @Option(names = "--png", paramLabel = "FILE", description = "Also draw the charts into this PNG file.")
    Path png;

    @Override
    public Integer call() throws Exception {
        List<String> run = orderedModes();
        CreelConf conf = common.loadConf();
        if (transport != null) {
            conf = onlyOver(conf, transport);
        }
        Duration perPoint = ConfValues.parseDuration(duration);
        BenchContext.Settings settings = new BenchContext.Settings(positive("--clients", clients),
                positive("--in-flight", inFlight), sizeList("--sizes", sizes),
                sizeList("--buffers", buffers).stream().map(Long::intValue).toList(), checkClass(storageClass), tcp || transport != null,
                Math.max(1, nodes), perPoint, Math.max(1, ops), ConfValues.parseSize(fileSize), Math.max(1, bagFiles),
                ConfValues.parseSize(bagFileSize), local, transport);
        BenchReport report = new BenchReport();
        describeMachine(report, run);
        PrintStream out = System.out;
        MiniCluster cluster = null;
        try (Progress progress = new Progress(System.err, System.console() != null)) {
            if (local) {
                // Short reuse delay: the kv mode replaces large values quickly; their old blocks come back sooner.
                MiniCluster.Builder b = MiniCluster.builder().dram(ConfValues.parseSize(dram))
                        .disk(ConfValues.parseSize(disk)).temporaryDirectories();
                conf.explicitSettings().forEach(b::set);
                cluster = b.set(NamenodeKeys.REUSE_DELAY, "500ms").start();
                conf = cluster.clientConf();
            }
            LoadDriver driver = new LoadDriver(progress, conf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT));
            try (BenchContext.ClientPool pool = new BenchContext.ClientPool(conf)) {
                BenchContext ctx = new BenchContext(conf, report, progress, driver, settings, pool);
                MetaBench meta = new MetaBench(ctx);
                for (String mode : run) {
                    switch (mode) {
                        case "baseline" -> BaselineBench.run(ctx);
                        case "kv" -> KvBench.run(ctx);
                        case "lookup" -> meta.lookup();
                        case "create" -> meta.create();
                        case "read" -> StreamBench.read(ctx);
                        case "write" -> StreamBench.write(ctx);
                        case "bag" -> BagBench.run(ctx);
                        case "ycsb" -> YcsbBench.run(ctx, ycsb);
                        default -> throw new IllegalStateException(mode);
                    }
                }
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
        Targets.compute(report);
        report.print(out);
        if (json != null) {
            Files.writeString(json, report.toJson(), StandardCharsets.UTF_8);
            out.println("JSON report: " + json);
        }
        if (png != null) {
            int panels = Charts.write(report, png);
            out.println("charts: " + png + " (" + panels + " panels)");
        }
        return 0;
    }

    /**
     * {@code conf} restricted to the transport {@code name}, after checking it is on the class path and
     * usable in this process (a user measuring RDMA must not get TCP figures by accident).
     */
    static CreelConf onlyOver(CreelConf conf, String name) {
        List<BlockTransportProvider> all = TransportSelector.loadProviders();
        BlockTransportProvider p = all.stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new CreelException(ErrorCode.INVALID_ARGUMENT, "--transport " + name
                        + ": no such transport on the class path (there are: "
                        + String.join(", ", all.stream().map(BlockTransportProvider::name).toList()) + ")"));
        String why = p.unavailableReason(conf);
        if (why != null) {
            throw new CreelException(ErrorCode.UNAVAILABLE, "--transport " + name + " cannot be used here: " + why);
        }
        return conf.with(TransportKeys.TRANSPORTS, name);
    }

    private List<String> orderedModes() {
        LinkedHashSet<String> set = new LinkedHashSet<>();
        for (String m : modes) {
            String mode = m.toLowerCase(Locale.ROOT);
            if (!MODES.contains(mode)) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "unknown bench mode '" + m + "'; modes are "
                        + String.join(", ", MODES));
            }
            set.add(mode);
        }
        return new ArrayList<>(set);
    }

    private static List<Integer> positive(String option, List<Integer> values) {
        for (int v : values) {
            if (v < 1) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, option + ": " + v + " is not a positive number");
            }
        }
        return values.stream().sorted().distinct().toList();
    }

    private static List<Long> sizeList(String option, List<String> texts) {
        List<Long> out = new ArrayList<>();
        for (String t : texts) {
            long v;
            try {
                v = ConfValues.parseSize(t);
            } catch (IllegalArgumentException e) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, option + ": " + e.getMessage());
            }
            if (v < 1 || v > (1L << 30)) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, option + ": " + t
                        + " is outside 1 byte .. 1 GiB (one buffer holds it)");
            }
            out.add(v);
        }
        return out;
    }

    private static String checkClass(String c) {
        if (!c.equals("dram") && !c.equals("disk")) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--class must be dram or disk, not '" + c + "'");
        }
        return c;
    }

    private void describeMachine(BenchReport report, List<String> run) {
        Runtime rt = Runtime.getRuntime();
        report.machine("cpus", rt.availableProcessors());
        report.machine("maxHeapBytes", rt.maxMemory());
        report.machine("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        report.machine("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        report.machine("modes", String.join(" ", run));
        report.machine("local", local);
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    report.machine("memTotal", line.substring(9).trim());
                }
            }
        } catch (IOException e) {
            report.machine("memTotal", "unknown (" + e.getMessage() + ")");
        }
    }
}
