package io.creel.bench;

import io.creel.bench.cluster.BenchCluster;
import io.creel.bench.cluster.ClusterProcess;
import io.creel.bench.cluster.ExistingCluster;
import io.creel.bench.cluster.InProcessCluster;
import io.creel.bench.cluster.ThrowawayTls;
import io.creel.bench.modes.BagBench;
import io.creel.bench.modes.BaselineBench;
import io.creel.bench.modes.BaselineSampler;
import io.creel.bench.modes.KvBench;
import io.creel.bench.modes.MetaBench;
import io.creel.bench.modes.StreamBench;
import io.creel.bench.process.JavaCommand;
import io.creel.bench.modes.ycsb.YcsbBench;
import io.creel.bench.modes.ycsb.YcsbOptions;
import io.creel.bench.report.BenchReport;
import io.creel.bench.report.Charts;
import io.creel.bench.report.MachineFacts;
import io.creel.bench.report.Targets;
import io.creel.bench.scope.RunNamespace;
import io.creel.bench.scope.RunScope;
import io.creel.bench.user.UserBench;
import io.creel.cli.CommonOptions;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.security.SecurityKeys;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code creel bench MODE...}: the paper's microbenchmarks and the targets against a
 * cluster the bench starts as its own process (or one in this JVM with {@code --local}, or an
 * existing one with {@code --existing}), next to this machine's limits and Redis, every figure
 * repeated; prints markdown: the facts of the machine at the start, then the points, the target
 * ratios and the end of the run. Everything the run makes is removed at its end, also when it
 * fails or is interrupted.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure Creel and this machine's limits; print markdown tables and the target ratios.",
                "Modes: baseline (loopback TCP, memory copy, Redis GET latency), kv (put/get latency by size), lookup "
                        + "and create (metadata ops/s by concurrency, each against Redis), read and write (sequential "
                        + "bandwidth by buffer), bag (a Bag read as one stream), user (the client API in a fresh JVM against "
                        + "cat, cp and a socket; bin/creel fs get/put: bench/scripts/fs-bulk.sh), ycsb (YCSB workloads, Creel vs Redis). They run in "
                        + "the order given.",
                "The cluster runs in its own process, started by the bench, unless --local or --existing."})
public final class BenchCommand implements Callable<Integer> {
    /** The modes, in the order they are run when several are given. */
    static final List<String> MODES = List.of("baseline", "kv", "lookup", "create", "read", "write", "bag", "user", "ycsb");
    /** How long the bench's cluster process may take to start. */
    private static final Duration CLUSTER_START_TIMEOUT = Duration.ofMinutes(2);

    @Mixin
    CommonOptions common;

    @Mixin
    YcsbOptions ycsb;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "MODE",
            description = "baseline, kv, lookup, create, read, write, bag, user, ycsb")
    List<String> modes;

    @Option(names = "--local", description = "Run the cluster in the bench's own JVM (for convenience: clients and "
            + "servers then share one process, unlike Redis and its clients; the output says so).")
    boolean local;

    @Option(names = "--existing", description = "Measure the running cluster of creel.namenode.address instead of "
            + "starting one (its namenode's memory is then not measured).")
    boolean existing;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "3",
            description = "Measure every point N times; figures are medians with min-max (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--baseline-samples", paramLabel = "K", defaultValue = "3",
            description = "Sample every baseline the run compares with (memory copy, socket, Redis, cat, cp) K times "
                    + "more, spread over the run: before the first mode, between modes, after the last; a target "
                    + "whose baseline moved more than 30 %% from its median is unsettled (0: off; default: "
                    + "${DEFAULT-VALUE}).")
    int baselineSamples;

    @Option(names = "--output", paramLabel = "FILE", description = "Also write the whole markdown output (facts, "
            + "points, every baseline sample, targets and verdicts) to FILE, e.g. docs/runs/NAME.md.")
    Path output;

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

    @Option(names = "--replication", paramLabel = "N", defaultValue = "1",
            description = "Copies of each block of the Files and KeyValues measured (1-8; the bench's own cluster needs "
                    + "as many --hosts). Default: ${DEFAULT-VALUE}.")
    int replication;

    @Option(names = "--hosts", paramLabel = "N", description = "DRAM servers of the bench's own cluster, one per "
            + "loopback host, --dram split between them (default: --replication), so that factors can be compared on "
            + "one cluster shape.")
    Integer hosts;

    @Option(names = "--size-classes", split = ",", paramLabel = "SIZE[,SIZE...]", defaultValue = "none",
            description = "Block sizes of the size-class DRAM servers the bench's own cluster starts next to each DRAM "
                    + "server (creel.storage.block.size; first blocks of small Files and KeyValues come from them), or "
                    + "none (default: ${DEFAULT-VALUE}).")
    List<String> sizeClasses;

    @Option(names = "--size-class-dram", paramLabel = "SIZE", description = "Bytes of each size-class server (default: "
            + "those of a DRAM server).")
    String sizeClassDram;

    @Option(names = "--tcp", description = "Measure only the TCP path (creel.client.local.access=false).")
    boolean tcp;

    @Option(names = "--tls", description = "Carry every connection of the bench's cluster and clients over TLS, with a "
            + "throw-away certificate made with openssl (to measure what TLS costs: run once with, once without).")
    boolean tls;

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

    @Option(names = "--user-size", paramLabel = "SIZE", defaultValue = "1g",
            description = "Size of the file the user mode copies (default: ${DEFAULT-VALUE}).")
    String userSize;

    @Option(names = "--bag-files", paramLabel = "N", defaultValue = "256",
            description = "Files in the bag mode's Bag (default: ${DEFAULT-VALUE}).")
    int bagFiles;

    @Option(names = "--bag-file-size", paramLabel = "SIZE", defaultValue = "256k",
            description = "Size of each of the Bag's files (default: ${DEFAULT-VALUE}).")
    String bagFileSize;

    @Option(names = "--dram", paramLabel = "SIZE", defaultValue = "3g",
            description = "DRAM tier of the bench's cluster (default: ${DEFAULT-VALUE}).")
    String dram;

    @Option(names = "--disk", paramLabel = "SIZE", defaultValue = "4g",
            description = "Disk tier of the bench's cluster (default: ${DEFAULT-VALUE}).")
    String disk;

    @Option(names = "--cluster-jvm-opts", paramLabel = "OPTIONS",
            description = "JVM options for the cluster process, after those it shares with the bench, e.g. "
                    + "\"-Xmx10g\" or a flight recording.")
    String clusterJvmOpts;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON.")
    Path json;

    @Option(names = "--png", paramLabel = "FILE", description = "Also draw the charts into this PNG file.")
    Path png;

    @Override
    public Integer call() throws IOException {
        List<String> run = orderedModes();
        BenchContext.Settings settings = settings();
        if (baselineSamples < 0 || baselineSamples > 20) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--baseline-samples: " + baselineSamples
                    + "; 0 to 20");
        }
        if (local && existing) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--local and --existing exclude each other");
        }
        if (clusterJvmOpts != null && (local || existing)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--cluster-jvm-opts is for the cluster process the "
                    + "bench starts, not with --local or --existing");
        }
        CreelConf conf = common.loadConf();
        long started = System.nanoTime();
        String runId = RunNamespace.newRunId();
        if (transport != null) {
            conf = onlyOver(conf, transport);
        }
        BenchReport report = new BenchReport();
        report.fact("command", "bin/creel " + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
        report.fact("run", runId + ": modes " + String.join(" ", run) + "; " + repeat + " repetition(s) of "
                + duration + " per point");
        MachineFacts.describe(report);
        report.fact("load average at start", MachineFacts.loadAverage());
        try (PrintStream out = output == null ? new PrintStream(new NoClose(System.out), true, StandardCharsets.UTF_8)
                : new PrintStream(new Tee(System.out, Files.newOutputStream(output)), true, StandardCharsets.UTF_8)) {
            return run(out, conf, run, settings, report, runId, started);
        }
    }

    private int run(PrintStream out, CreelConf conf, List<String> run, BenchContext.Settings settings,
                    BenchReport report, String runId, long started) throws IOException {
        RuntimeException failure = null;
        List<String> cleanupFailures;
        RunScope scope = new RunScope(System.err);
        ThrowawayTls certificates = null;
        if (tls) {
            certificates = ThrowawayTls.on(conf);
            conf = certificates.conf();
            scope.add("the --tls certificate", certificates);
            report.fact("tls", "on, engine " + conf.get(SecurityKeys.TLS_PROVIDER) + " (openssl when netty-tcnative is "
                    + "present: " + io.netty.handler.ssl.OpenSsl.isAvailable() + ")");
        }
        try (Progress progress = new Progress(System.err, System.console() != null)) {
            try {
                progress.point("starting the cluster");
                BenchCluster cluster = scope.add("the cluster", startCluster(conf));
                report.fact("cluster", cluster.description());
                BenchContext.ClientPool pool = scope.add("the bench's clients",
                        new BenchContext.ClientPool(cluster.clientConf()));
                Duration timeout = cluster.clientConf().get(ConfKeys.CLIENT_REQUEST_TIMEOUT);
                RunNamespace names = scope.add("the bench's nodes",
                        new RunNamespace(runId, () -> pool.main(false), timeout));
                LoadDriver driver = new LoadDriver(progress, timeout);
                BenchContext ctx = new BenchContext(cluster, report, progress, driver, settings, pool, names, scope);
                BaselineSampler sampler = new BaselineSampler(ctx, run, baselineSamples);
                report.fact("baseline samples", sampler.describe());
                report.printFacts(out, "Creel bench");
                runModes(ctx, run, sampler);
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                progress.point("cleaning up");
                cleanupFailures = scope.closeAndReport();
            }
        }
        report.fact("load average at end", MachineFacts.loadAverage());
        report.fact("took", took(System.nanoTime() - started));
        if (failure == null && !cleanupFailures.isEmpty()) {
            failure = new CreelException(ErrorCode.INTERNAL, "the run could not clean up: "
                    + String.join("; ", cleanupFailures));
        } else {
            cleanupFailures.forEach(f -> report.note("cleanup: " + f));
        }
        if (failure != null) {
            report.note("the run FAILED: " + failure.getMessage() + " (these are the figures measured before)");
        }
        Targets.compute(report);
        report.printResults(out);
        if (failure != null) {
            throw failure;
        }
        if (json != null) {
            Files.writeString(json, report.toJson(), StandardCharsets.UTF_8);
            out.println();
            out.println("JSON report: " + json);
        }
        if (png != null) {
            int panels = Charts.write(report, png);
            out.println("charts: " + png + " (" + panels + " panels)");
        }
        return 0;
    }

    private void runModes(BenchContext ctx, List<String> run, BaselineSampler sampler) {
        MetaBench meta = new MetaBench(ctx);
        for (int i = 0; i < run.size(); i++) {
            sampler.checkpoint(i);
            String mode = run.get(i);
            switch (mode) {
                case "baseline" -> BaselineBench.run(ctx);
                case "kv" -> KvBench.run(ctx);
                case "lookup" -> meta.lookup();
                case "create" -> meta.create();
                case "read" -> StreamBench.read(ctx);
                case "write" -> StreamBench.write(ctx);
                case "bag" -> BagBench.run(ctx);
                case "user" -> UserBench.run(ctx);
                case "ycsb" -> YcsbBench.run(ctx, ycsb);
                default -> throw new IllegalStateException(mode);
            }
        }
        sampler.checkpoint(run.size());
    }

    /** Standard output, not closed with the stream that wraps it. */
    private static final class NoClose extends java.io.FilterOutputStream {
        NoClose(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }

    /** Writes to standard output (left open) and to the --output file (closed with it). */
    private static final class Tee extends java.io.OutputStream {
        private final java.io.OutputStream console;
        private final java.io.OutputStream file;

        Tee(java.io.OutputStream console, java.io.OutputStream file) {
            this.console = console;
            this.file = file;
        }

        @Override
        public void write(int b) throws IOException {
            console.write(b);
            file.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            console.write(b, off, len);
            file.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            console.flush();
            file.flush();
        }

        @Override
        public void close() throws IOException {
            console.flush();
            file.close();
        }
    }

    private BenchCluster startCluster(CreelConf conf) {
        if (existing) {
            return new ExistingCluster(conf);
        }
        // Short reuse delay: the kv mode replaces large values quickly; their old blocks come back sooner.
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(NamenodeKeys.REUSE_DELAY.name(), "500ms");
        conf.explicitSettings().forEach((k, v) -> {
            if (!k.equals(ConfKeys.NAMENODE_ADDRESS.name())) {
                settings.put(k, v);
            }
        });
        long dramBytes = size("--dram", dram);
        long diskBytes = size("--disk", disk);
        int hostCount = hosts == null ? replication : hosts;
        if (hostCount < replication || hostCount > 250) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--hosts: " + hostCount + "; at least --replication ("
                    + replication + ") and at most 250");
        }
        int dramServers = dramBytes > 0 ? hostCount : 0;
        long perServer = dramServers == 0 ? 0 : dramBytes / dramServers;
        List<Long> classes = sizeClasses.equals(List.of("none")) ? List.of()
                : sizeClasses.stream().map(v -> size("--size-classes", v)).toList();
        if (local) {
            MiniCluster.Builder b = MiniCluster.builder().dram(perServer).disk(diskBytes).temporaryDirectories()
                    .servers(dramServers, diskBytes > 0 ? 1 : 0).hosts(hostCount)
                    .sizeClasses(classes.stream().mapToLong(Long::longValue).toArray())
                    .sizeClassDram(sizeClassDram == null ? -1 : size("--size-class-dram", sizeClassDram));
            settings.forEach(b::set);
            return new InProcessCluster(b.start());
        }
        return ClusterProcess.start(new ClusterProcess.Spec(perServer, diskBytes, settings,
                JavaCommand.splitOptions(clusterJvmOpts), dramServers, hostCount, classes,
                sizeClassDram == null ? -1 : size("--size-class-dram", sizeClassDram)), CLUSTER_START_TIMEOUT);
    }

    private BenchContext.Settings settings() {
        if (repeat < 1) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--repeat: " + repeat + " is not a positive number");
        }
        if (replication < 1 || replication > io.creel.common.protocol.BlockLocation.MAX_COPIES) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--replication: " + replication + " copies; 1 to "
                    + io.creel.common.protocol.BlockLocation.MAX_COPIES);
        }
        Duration perPoint;
        try {
            perPoint = ConfValues.parseDuration(duration);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--duration: " + e.getMessage());
        }
        long user = size("--user-size", userSize);
        if (user < (1L << 20)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--user-size: " + userSize + " is below 1 MiB: the "
                    + "transfer would be lost in the JVM's start");
        }
        return new BenchContext.Settings(positive("--clients", clients), positive("--in-flight", inFlight),
                sizeList("--sizes", sizes), sizeList("--buffers", buffers).stream().map(Long::intValue).toList(),
                checkClass(storageClass), tcp || transport != null, Math.max(1, nodes), perPoint, Math.max(1, ops), size("--file-size",
                fileSize), Math.max(1, bagFiles), size("--bag-file-size", bagFileSize), repeat, user, transport,
                replication);
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

    private static long size(String option, String text) {
        try {
            return ConfValues.parseSize(text);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, option + ": " + e.getMessage());
        }
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
            long v = size(option, t);
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

    /** "1 min 48 s", "12.3 s". */
    static String took(long nanos) {
        double s = nanos / 1e9;
        if (s < 60) {
            return String.format(Locale.ROOT, "%.1f s", s);
        }
        long whole = Math.round(s);
        return (whole / 60) + " min " + (whole % 60) + " s";
    }
}
