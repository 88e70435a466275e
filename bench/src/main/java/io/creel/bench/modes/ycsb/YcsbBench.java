package io.creel.bench.modes.ycsb;

import io.creel.bench.BenchContext;
import io.creel.bench.baseline.RedisServer;
import io.creel.bench.report.MachineFacts;
import io.creel.bench.report.Measurement;
import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * {@code bench ycsb}: YCSB's core workloads against Creel and Redis in the same run, with the same
 * records (10 fields of 100 bytes), record count, operation count and client threads, and
 * {@code dataintegrity=true} throughout. Each store is loaded once; then each workload runs
 * against Creel and against Redis in turn (interleaved, so both see the same background load).
 * Every YCSB client is a JVM of its own ({@link YcsbProcess}), apart from the Creel servers and
 * from redis-server. A run with any failed operation or integrity check stops the bench: its
 * figures would not be comparable.
 *
 * <p>Prints, per workload and operation type, throughput and p50/p99 latency of both stores and
 * Creel/Redis ratios; adds the figures to the report (mode {@code ycsb}) with targets for
 * workloads B and C (Creel ≥ 1.0× Redis throughput); draws them with {@link YcsbChart}.
 *
 * <p>Workload E scans, so when it is in the run both stores pay for what scanning needs, from the
 * load on and in every workload (the same records are used throughout): Creel's Table is created
 * ordered, and Redis keeps YCSB's sorted-set index of every key, updated by each insert and delete.
 * The table's footnote says so ({@link #SCAN_NOTE}).
 */
public final class YcsbBench {
    static final List<String> WORKLOADS = List.of("a", "b", "c", "d", "e", "f");
    /** Workloads whose throughput has a target (the issue's: ≥ 1.0× Redis). */
    static final List<String> TARGETS = List.of("b", "c");
    /** The footnote of a run with workload E: what both stores pay for its scans, in every workload. */
    static final String SCAN_NOTE = "workload E scans: in this run Creel's Table is ordered and Redis keeps YCSB's "
            + "sorted-set index (_indices, a ZADD with every insert) in every workload, from the load on "
            + "(ycsb-binding/README.md)";

    private final BenchContext ctx;
    private final YcsbOptions options;
    private final Duration limit;
    /** Directory of the bench's Creel table: one of the run's names, so the run removes it however it ends. */
    private final String root;
    private final PrintStream out = System.out;

    private YcsbBench(BenchContext ctx, YcsbOptions options) {
        this.ctx = ctx;
        this.options = options;
        this.limit = ConfValues.parseDuration(options.timeout);
        this.root = ctx.names().path("ycsb");
    }

    /** Runs the YCSB comparison of one bench run. */
    public static void run(BenchContext ctx, YcsbOptions options) {
        new YcsbBench(ctx, options).run();
    }

    /** One store's side: its DB class and the properties that point it at its server. */
    private record Store(String name, String db, Map<String, String> properties) {
    }

    private void run() {
        List<String> order = workloads();
        if (options.records < 1 || options.operations < 1 || options.threads < 1) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--ycsb-records, --ycsb-operations and --ycsb-threads "
                    + "must be positive");
        }
        checkClassPath();
        String loadBefore = MachineFacts.loadAverage();
        CreelClient admin = ctx.pool().main(false);
        removeRoot(admin);
        Optional<Path> redisExe = RedisServer.find();
        if (redisExe.isEmpty()) {
            ctx.report().note("ycsb: redis-server not installed: Creel only, no ratios");
            System.err.println("bench: redis-server not installed: YCSB runs Creel only, no ratios");
        }
        try (RedisServer redis = redisExe.isPresent() ? RedisServer.start(redisExe.get()) : null) {
            List<Store> stores = new ArrayList<>();
            boolean scans = order.contains("e");
            Map<String, String> creel = creelProperties();
            // One setting for every phase: the load makes the Table and the index that E's scans read,
            // and every insert before E (D's too) must go into them.
            creel.put("creel.ycsb.table.ordered", Boolean.toString(scans));
            stores.add(new Store("creel", YcsbProcess.CREEL_DB, creel));
            if (redis != null) {
                stores.add(new Store("redis", YcsbProcess.REDIS_DB, Map.of("redis.host", "127.0.0.1", "redis.port",
                        Integer.toString(redis.port()), "redis.index", Boolean.toString(scans))));
            }
            Map<String, Map<String, YcsbResult>> results = new LinkedHashMap<>();
            for (Store s : stores) {
                YcsbResult load = client(YcsbProcess.load(s.db()), s, "a", "load").start(limit);
                check(s, "load", load, options.records);
                results.computeIfAbsent(s.name(), k -> new LinkedHashMap<>()).put("load", load);
            }
            for (String w : order) {
                for (Store s : stores) {
                    YcsbResult r = client(YcsbProcess.run(s.db()), s, w, "workload " + w).start(limit);
                    check(s, "workload " + w, r, options.operations);
                    results.get(s.name()).put(w, r);
                }
            }
            String loadAfter = MachineFacts.loadAverage();
            ctx.report().fact("ycsb load average", loadBefore + " -> " + loadAfter);
            YcsbTable table = new YcsbTable(results, order);
            // Said whenever E runs: its ordering and index are paid in every workload's figures.
            table.print(out, header(loadBefore, loadAfter), scans ? SCAN_NOTE : null);
            record(results, order);
            if (scans) {
                ctx.report().note(SCAN_NOTE);
            }
            if (options.chart != null) {
                YcsbChart.write(table, options.chart);
                out.println("YCSB chart: " + options.chart);
            }
        } catch (IOException e) {
            throw new CreelException(ErrorCode.INTERNAL, "bench ycsb: " + e.getMessage(), e);
        } finally {
            removeRoot(admin);
        }
    }

    private List<String> workloads() {
        LinkedHashSet<String> set = new LinkedHashSet<>();
        for (String w : options.workloads) {
            String name = w.trim().toLowerCase(Locale.ROOT).replaceFirst("^workload", "");
            if (!WORKLOADS.contains(name)) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--ycsb-workloads: unknown workload '" + w
                        + "'; the core workloads are a, b, c, d, e, f");
            }
            set.add(name);
        }
        return new ArrayList<>(set);
    }

    private String header(String loadBefore, String loadAfter) {
        return String.format(Locale.ROOT, "YCSB: %,d records of 10 x 100 B, %,d operations per workload, %d client "
                        + "threads per store, dataintegrity=true; load average %s at start, %s at end",
                options.records, options.operations, options.threads, loadBefore, loadAfter);
    }

    /** The YCSB client of one phase of {@code store}: the workload's file, then the bench's settings. */
    private YcsbProcess client(YcsbProcess p, Store store, String workload, String label) {
        p.properties(workloadFile(workload))
                .property("recordcount", Integer.toString(options.records))
                .property("operationcount", Integer.toString(options.operations))
                .property("fieldcount", "10")
                .property("fieldlength", "100")
                .property("dataintegrity", "true")
                .property("hdrhistogram.percentiles", "50,99")
                .properties(store.properties())
                .threads(options.threads)
                .jvmOption("-Xmx1g")
                .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .label(label);
        options.jvmOptions.forEach(p::jvmOption);
        ctx.progress().point("ycsb " + label + " " + store.name());
        return p;
    }

    /** The Creel cluster of this bench run as YCSB properties, and the bench's table directory. */
    private Map<String, String> creelProperties() {
        Map<String, String> p = new LinkedHashMap<>(ctx.conf().explicitSettings());
        p.put("creel.ycsb.root", root);
        return p;
    }

    /** A run whose operations did not all succeed, or whose data did not verify, is not a figure. */
    private static void check(Store s, String phase, YcsbResult r, long expected) {
        List<String> problems = r.problems(expected, List.of());
        if (!problems.isEmpty()) {
            throw new CreelException(ErrorCode.INTERNAL, "bench ycsb: " + s.name() + " " + phase + ": "
                    + String.join("; ", problems) + (r.log().isEmpty() ? ""
                    : "\n  the client's last lines of standard error:\n  " + String.join("\n  ", r.log())));
        }
    }

    private void record(Map<String, Map<String, YcsbResult>> results, List<String> order) {
        for (Map.Entry<String, Map<String, YcsbResult>> store : results.entrySet()) {
            for (Map.Entry<String, YcsbResult> run : store.getValue().entrySet()) {
                YcsbResult r = run.getValue();
                double seconds = r.runtimeMillis() / 1000.0;
                String w = run.getKey().toUpperCase(Locale.ROOT);
                ctx.report().add(new Measurement("ycsb", store.getKey() + " " + w + " all", Map.of("clients",
                        options.threads), new Summary(r.done(), seconds, r.throughput(), 0, 0, 0, 0, 0, 0)));
                for (String op : r.operations()) {
                    long n = r.total(op);
                    ctx.report().add(new Measurement("ycsb", store.getKey() + " " + w + " " + op,
                            Map.of("clients", options.threads), new Summary(n, seconds, n / seconds, 0,
                            r.averageMicros(op), r.percentileMicros(op, 50), r.percentileMicros(op, 99), 0,
                            r.maxMicros(op))));
                }
            }
        }
        Map<String, YcsbResult> creel = results.get("creel");
        Map<String, YcsbResult> redis = results.get("redis");
        if (redis == null) {
            return;
        }
        for (String w : order) {
            if (TARGETS.contains(w) && creel.containsKey(w) && redis.containsKey(w)) {
                ctx.report().ratio(Ratio.atLeast("ycsb " + w.toUpperCase(Locale.ROOT) + " " + options.threads
                        + " threads vs Redis", creel.get(w).throughput(), redis.get(w).throughput(), "ops/s", 1.0));
            }
        }
    }

    /** The standard workload file from the ycsb-binding jar. */
    static Map<String, String> workloadFile(String name) {
        String resource = YcsbProcess.WORKLOAD_RESOURCES + "workload" + name;
        try (InputStream in = YcsbBench.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new CreelException(ErrorCode.CONFIGURATION, "bench ycsb: " + resource + " is not on the class "
                        + "path (it comes with the ycsb-binding module; run the bench through bin/creel)");
            }
            Properties p = new Properties();
            p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
            Map<String, String> out = new LinkedHashMap<>();
            p.stringPropertyNames().stream().sorted().forEach(k -> out.put(k, p.getProperty(k)));
            return out;
        } catch (IOException e) {
            throw new CreelException(ErrorCode.INTERNAL, "bench ycsb: cannot read " + resource + ": " + e.getMessage(),
                    e);
        }
    }

    /** YCSB and the binding are found by name in the child: make sure the class path has them. */
    private static void checkClassPath() {
        for (String c : List.of(YcsbProcess.CLIENT, YcsbProcess.CREEL_DB, YcsbProcess.REDIS_DB)) {
            try {
                Class.forName(c, false, YcsbBench.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new CreelException(ErrorCode.CONFIGURATION, "bench ycsb: " + c + " is not on the class path "
                        + "(YCSB and the ycsb-binding module come with bin/creel)");
            }
        }
    }

    private void removeRoot(CreelClient admin) {
        try {
            Futures.await(admin.delete(root, true), Duration.ofMinutes(2), "removing " + root);
        } catch (CreelException e) {
            if (e.code() != ErrorCode.NOT_FOUND) {
                System.err.println("bench: could not remove " + root + ": " + e.getMessage());
            }
        }
    }
}
