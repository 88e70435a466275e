package io.creel.spark.bench;

import io.creel.common.conf.ConfValues;
import io.creel.minicluster.MiniCluster;
import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.CreelShuffleManager;
import io.creel.storage.StorageKeys;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import scala.Tuple2;

/**
 * {@code spark-shuffle/bench.sh}: Spark's sort shuffle against Creel's, in one run, on
 * {@code local-cluster} (separate executor JVMs) against an in-process Creel cluster.
 *
 * <p>Jobs (the regimes where a remote shuffle matters):
 * <ul>
 *   <li>{@code wide}: M maps x R reducers of small records (two longs), {@code partitionBy(R).count()}:
 *       the M x R small-piece regime;</li>
 *   <li>{@code groupby}: the Crail paper's GroupBy, bulk bytes through {@code groupByKey};</li>
 *   <li>{@code sort}: 100-byte records through {@code sortByKey} (bulk, optional);</li>
 *   <li>{@code sql}: an aggregation over a sort-merge join of a fact table of N rows with a 1 M-row
 *       dimension, {@code spark.sql.shuffle.partitions} set, broadcast joins and AQE coalescing off so
 *       the shuffle keeps its partitions.</li>
 * </ul>
 *
 * <p>The systems ({@code --systems}, default all): {@code vanilla} (Spark's sort shuffle),
 * {@code per-map} and {@code merged} (Creel with {@code spark.creel.shuffle.layout} set so).
 * Each job runs one warm-up and {@code --runs} timed runs per system, the systems' order rotating
 * every round so that a machine that gets busier or quieter during the run moves all; each run has a
 * fresh {@code SparkContext}, and only the job is timed (the cached input of GroupBy and sort is
 * made and counted first). Prints every run, then per job the medians with min–max, each Creel
 * layout's ratio to vanilla and its verdict against the goal: <em>met</em>, <em>missed</em>, or
 * <em>unsettled</em> when either system's runs spread by more than 30 % around their median (the
 * machine moved more than the goal's margin). Writes the table with every run to
 * {@code --out}/bench-spark.md and a chart to {@code --out}/bench-spark.png.
 *
 * <pre>
 * --jobs wide,groupby,sql   --runs 5   --out spark-shuffle/docs   --systems vanilla,per-map,merged
 * --wide-maps 2000 --wide-reducers 2000 --wide-records 10000000
 * --maps 16 --pairs 131072 --value 1024 --reducers 16        GroupBy: 2 GiB
 * --sort-records 20000000                                     sort: 2 GB
 * --sql-rows 20000000 --sql-partitions 400
 * --executors 2 --cores 2 --executor-memory 4g
 * --jfr DIR                                                   executors of Creel runs write flight recordings there
 * </pre>
 */
public final class SparkShuffleBench {
    /** A spread beyond this around a median makes a verdict unsettled. */
    static final double UNSETTLED_SPREAD = 0.30;

    private int wideMaps = 2000;
    private int wideReducers = 2000;
    private long wideRecords = 10_000_000;
    private int maps = 16;
    private int pairs = 131_072;
    private int valueSize = 1024;
    private int reducers = 16;
    private long sortRecords = 20_000_000;
    private long sqlRows = 20_000_000;
    private int sqlPartitions = 400;
    private int executors = 2;
    private int cores = 2;
    private String executorMemory = "4g";
    private int runs = 5;
    private Path out = Path.of("spark-shuffle/docs");
    private List<String> jobs = List.of("wide", "groupby", "sql");
    private List<String> systems = List.of("vanilla", "per-map", "merged");
    /** Where executors of the Creel runs write Java Flight Recordings, or null for none. */
    private Path jfr;
    private final StringBuilder log = new StringBuilder();

    public static void main(String[] args) throws Exception {
        SparkShuffleBench b = new SparkShuffleBench();
        b.parse(args);
        b.run();
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--wide-maps" -> wideMaps = Integer.parseInt(need(args[i], v));
                case "--wide-reducers" -> wideReducers = Integer.parseInt(need(args[i], v));
                case "--wide-records" -> wideRecords = Long.parseLong(need(args[i], v));
                case "--maps" -> maps = Integer.parseInt(need(args[i], v));
                case "--pairs" -> pairs = Integer.parseInt(need(args[i], v));
                case "--value" -> valueSize = Integer.parseInt(need(args[i], v));
                case "--reducers" -> reducers = Integer.parseInt(need(args[i], v));
                case "--sort-records" -> sortRecords = Long.parseLong(need(args[i], v));
                case "--sql-rows" -> sqlRows = Long.parseLong(need(args[i], v));
                case "--sql-partitions" -> sqlPartitions = Integer.parseInt(need(args[i], v));
                case "--executors" -> executors = Integer.parseInt(need(args[i], v));
                case "--cores" -> cores = Integer.parseInt(need(args[i], v));
                case "--executor-memory" -> executorMemory = need(args[i], v);
                case "--runs" -> runs = Integer.parseInt(need(args[i], v));
                case "--out" -> out = Path.of(need(args[i], v));
                case "--jobs" -> jobs = Arrays.asList(need(args[i], v).split(","));
                case "--systems" -> systems = Arrays.asList(need(args[i], v).split(","));
                case "--jfr" -> jfr = Path.of(need(args[i], v)).toAbsolutePath();
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (see io.creel.spark.bench.SparkShuffleBench)");
            }
            i++;
        }
        for (String j : jobs) {
            if (!List.of("wide", "groupby", "sort", "sql").contains(j)) {
                throw new IllegalArgumentException("unknown job " + j + " (wide, groupby, sort, sql)");
            }
        }
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1");
        }
        for (String sys : systems) {
            if (!List.of("vanilla", "per-map", "merged").contains(sys)) {
                throw new IllegalArgumentException("unknown system " + sys + " (vanilla, per-map, merged)");
            }
        }
    }

    private static String need(String key, String v) {
        if (v == null) {
            throw new IllegalArgumentException(key + " needs a value");
        }
        return v;
    }

    private void say(String format, Object... args) {
        String line = String.format(format, args);
        System.out.println(line);
        log.append(line).append('\n');
    }

    private SparkConf conf(String name, String creelAddress, String layout) throws IOException {
        String home = System.getenv("SPARK_HOME");
        if (home == null) {
            throw new IllegalStateException("SPARK_HOME must name a directory (bench.sh sets it)");
        }
        Files.createDirectories(Path.of(home, "jars"));
        int memMb = (int) (ConfValues.parseSize(executorMemory) >> 20);
        SparkConf c = new SparkConf().setMaster("local-cluster[" + executors + "," + cores + "," + memMb + "]")
                .setAppName(name)
                .set("spark.home", home)
                .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.executor.memory", executorMemory)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.ui.enabled", "false")
                .set("spark.sql.shuffle.partitions", String.valueOf(sqlPartitions))
                .set("spark.sql.autoBroadcastJoinThreshold", "-1")
                .set("spark.sql.adaptive.coalescePartitions.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
        if (creelAddress != null) {
            c.set("spark.shuffle.manager", CreelShuffleManager.class.getName())
                    .set(SparkCreelConf.NAMENODE_ADDRESS, creelAddress)
                    .set(SparkCreelConf.LAYOUT, layout);
            if (jfr != null) {
                Files.createDirectories(jfr);
                c.set("spark.executor.extraJavaOptions", "-XX:StartFlightRecording=settings=profile,filename="
                        + jfr.resolve(name + "-executor-%p.jfr"));
            }
        }
        return c;
    }

    /** One job: what it prepares untimed in a fresh context, and the timed part, which returns a check value. */
    private interface Job {
        Object prepare(JavaSparkContext sc);

        long run(JavaSparkContext sc, Object input);

        long expected();
    }

    private Job job(String name) {
        return switch (name) {
            case "wide" -> new Job() {
                public Object prepare(JavaSparkContext sc) {
                    return null;
                }

                public long run(JavaSparkContext sc, Object input) {
                    long per = wideRecords / wideMaps;
                    return sc.parallelize(range(wideMaps), wideMaps).flatMapToPair(m -> {
                        Random r = new Random(m);
                        List<Tuple2<Long, Long>> kv = new ArrayList<>((int) per);
                        for (long i = 0; i < per; i++) {
                            kv.add(new Tuple2<>(r.nextLong(), i));
                        }
                        return kv.iterator();
                    }).partitionBy(new HashPartitioner(wideReducers)).count();
                }

                public long expected() {
                    return wideRecords / wideMaps * wideMaps;
                }
            };
            case "groupby" -> new Job() {
                public Object prepare(JavaSparkContext sc) {
                    int p = pairs;
                    int v = valueSize;
                    JavaPairRDD<Integer, byte[]> in = sc.parallelize(range(maps), maps).flatMapToPair(m -> {
                        Random r = new Random(m);
                        List<Tuple2<Integer, byte[]>> kv = new ArrayList<>(p);
                        for (int i = 0; i < p; i++) {
                            byte[] b = new byte[v];
                            r.nextBytes(b);
                            kv.add(new Tuple2<>(r.nextInt(Integer.MAX_VALUE), b));
                        }
                        return kv.iterator();
                    }).persist(StorageLevel.MEMORY_ONLY());
                    in.count();
                    return in;
                }

                @SuppressWarnings("unchecked")
                public long run(JavaSparkContext sc, Object input) {
                    // Keys are random ints: the distinct keys are nearly all pairs; count the values.
                    return ((JavaPairRDD<Integer, byte[]>) input).groupByKey(reducers).map(g -> count(g._2()))
                            .reduce(Long::sum);
                }

                public long expected() {
                    return (long) maps * pairs;
                }
            };
            case "sort" -> new Job() {
                public Object prepare(JavaSparkContext sc) {
                    long per = sortRecords / maps;
                    JavaPairRDD<Long, byte[]> in = sc.parallelize(range(maps), maps).flatMapToPair(m -> {
                        Random r = new Random(1000 + m);
                        List<Tuple2<Long, byte[]>> kv = new ArrayList<>((int) per);
                        for (long i = 0; i < per; i++) {
                            byte[] b = new byte[92]; // an 8-byte key and 92 bytes of payload: 100-byte records
                            r.nextBytes(b);
                            kv.add(new Tuple2<>(r.nextLong(), b));
                        }
                        return kv.iterator();
                    }).persist(StorageLevel.MEMORY_ONLY());
                    in.count();
                    return in;
                }

                @SuppressWarnings("unchecked")
                public long run(JavaSparkContext sc, Object input) {
                    return ((JavaPairRDD<Long, byte[]>) input).sortByKey(true, reducers).mapPartitions(it -> {
                        long c = 0;
                        long prev = Long.MIN_VALUE;
                        while (it.hasNext()) {
                            long k = it.next()._1();
                            if (k < prev) {
                                throw new IllegalStateException("sort output out of order");
                            }
                            prev = k;
                            c++;
                        }
                        return List.of(c).iterator();
                    }).reduce(Long::sum);
                }

                public long expected() {
                    return sortRecords / maps * maps;
                }
            };
            case "sql" -> new Job() {
                public Object prepare(JavaSparkContext sc) {
                    return null;
                }

                public long run(JavaSparkContext sc, Object input) {
                    SparkSession spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
                    Dataset<Row> facts = spark.range(0, sqlRows, 1, 2 * executors * cores)
                            .selectExpr("id % 1000000 AS k", "id AS v");
                    Dataset<Row> dim = spark.range(0, 1_000_000, 1, 2 * executors * cores)
                            .selectExpr("id AS k", "id % 1000 AS grp");
                    Row[] rows = (Row[]) facts.join(dim, "k").groupBy("grp")
                            .agg(org.apache.spark.sql.functions.count("*").alias("n")).collect();
                    long n = 0;
                    for (Row r : rows) {
                        n += r.getLong(1);
                    }
                    return n;
                }

                public long expected() {
                    return sqlRows;
                }
            };
            default -> throw new IllegalArgumentException(name);
        };
    }

    private static long count(Iterable<?> values) {
        long c = 0;
        for (Object ignored : values) {
            c++;
        }
        return c;
    }

    /** Seconds of one timed run of {@code job} on {@code system} (a fresh context, input made untimed). */
    private double runOnce(Job job, String name, String system, String creelAddress) throws IOException {
        try (JavaSparkContext sc = new JavaSparkContext(conf("bench-" + name + "-" + system, creelAddress, system))) {
            Object input = job.prepare(sc);
            long t0 = System.nanoTime();
            long got = job.run(sc, input);
            double s = (System.nanoTime() - t0) / 1e9;
            if (got != job.expected()) {
                throw new IllegalStateException(name + " on " + system + " gave " + got + ", expected "
                        + job.expected());
            }
            return s;
        }
    }

    /** Median, min and max of some seconds. */
    record Spread(double median, double min, double max) {
        static Spread of(List<Double> s) {
            double[] a = s.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double median = a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
            return new Spread(median, a[0], a[a.length - 1]);
        }

        /** The largest distance of a run from the median, as a share of the median. */
        double spread() {
            return Math.max(max - median, median - min) / median;
        }

        @Override
        public String toString() {
            return String.format("%.2f s (%.2f–%.2f)", median, min, max);
        }
    }

    /** The verdict of a ratio against its goal, given both systems' spreads. */
    static String verdict(double ratio, double goal, Spread vanilla, Spread creel) {
        if (vanilla.spread() > UNSETTLED_SPREAD || creel.spread() > UNSETTLED_SPREAD) {
            return "unsettled";
        }
        return ratio <= goal ? "met" : "missed";
    }

    private static double goal(String job) {
        return job.equals("groupby") || job.equals("sort") ? 1.0 : 0.7;
    }

    private String describe(String job) {
        return switch (job) {
            case "wide" -> String.format("wide: %d maps x %d reducers, %,d records of two longs", wideMaps,
                    wideReducers, wideRecords);
            case "groupby" -> String.format("groupby: %d maps x %d pairs x %d B (%.2f GiB) into %d reducers", maps,
                    pairs, valueSize, (double) maps * pairs * valueSize / (1L << 30), reducers);
            case "sort" -> String.format("sort: %,d 100-byte records (%.2f GB) into %d reducers", sortRecords,
                    sortRecords * 100 / 1e9, reducers);
            case "sql" -> String.format("sql: count per group over a sort-merge join of %,d x 1,000,000 rows, "
                    + "%d shuffle partitions", sqlRows, sqlPartitions);
            default -> job;
        };
    }

    private void run() throws IOException {
        say("# Spark shuffle bench, %s", Instant.now());
        say("");
        say("Spark %s, local-cluster[%d executors x %d cores, %s each], %d CPUs, load average %.2f at start; "
                        + "1 warm-up + %d timed runs per system, systems alternating.", org.apache.spark.package$.MODULE$
                        .SPARK_VERSION(), executors, cores, executorMemory,
                Runtime.getRuntime().availableProcessors(), loadAverage(), runs);
        for (String j : jobs) {
            say("- %s", describe(j));
        }
        say("");
        Path dram = Files.createTempDirectory(Path.of("/dev/shm"), "creel-spark-bench-");
        Path disk = Files.createTempDirectory("creel-spark-bench-disk-");
        Map<String, Map<String, Spread>> results = new LinkedHashMap<>();
        try (MiniCluster cluster = MiniCluster.builder().dram(6L << 30).disk(8L << 30).dramDir(dram).diskDir(disk)
                .set(StorageKeys.REGION_SIZE, "64m").start()) {
            String address = cluster.address().toUri();
            say("```");
            for (String name : jobs) {
                Job job = job(name);
                Map<String, List<Double>> times = new LinkedHashMap<>();
                systems.forEach(sys -> times.put(sys, new ArrayList<>()));
                for (int round = 0; round <= runs; round++) {
                    List<String> order = new ArrayList<>(systems);
                    java.util.Collections.rotate(order, -round);
                    for (String system : order) {
                        double s = runOnce(job, name, system, system.equals("vanilla") ? null : address);
                        say("%-8s %-8s %s %.2f s (load %.2f)", name, system, round == 0 ? "warm-up" : "run " + round,
                                s, loadAverage());
                        if (round > 0) {
                            times.get(system).add(s);
                        }
                    }
                }
                Map<String, Spread> spreads = new LinkedHashMap<>();
                times.forEach((sys, t) -> spreads.put(sys, Spread.of(t)));
                results.put(name, spreads);
            }
            say("```");
        } finally {
            deleteTree(dram);
            deleteTree(disk);
        }
        say("");
        StringBuilder head = new StringBuilder("| job |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String sys : systems) {
            head.append(' ').append(sys).append(" median (min–max) |");
            rule.append("---|");
        }
        for (String sys : systems) {
            if (!sys.equals("vanilla") && systems.contains("vanilla")) {
                head.append(' ').append(sys).append(" / vanilla | verdict |");
                rule.append("---|---|");
            }
        }
        head.append(" goal |");
        rule.append("---|");
        say("%s", head);
        say("%s", rule);
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
                .title("Spark shuffle: job time by system (median, bars min-max; lower is better)")
                .xAxisTitle("job").yAxisTitle("seconds").build();
        List<String> names = new ArrayList<>(results.keySet());
        for (String name : names) {
            Map<String, Spread> r = results.get(name);
            StringBuilder row = new StringBuilder("| " + name + " |");
            for (String sys : systems) {
                row.append(' ').append(r.get(sys)).append(" |");
            }
            for (String sys : systems) {
                if (!sys.equals("vanilla") && systems.contains("vanilla")) {
                    double ratio = r.get(sys).median() / r.get("vanilla").median();
                    row.append(String.format(" %.2f | %s |", ratio,
                            verdict(ratio, goal(name), r.get("vanilla"), r.get(sys))));
                }
            }
            row.append(String.format(" <= %.1f |", goal(name)));
            say("%s", row);
        }
        say("");
        say("Load average at the end: %.2f. A verdict is unsettled when a system's runs spread more than %d %% around "
                + "their median.", loadAverage(), (int) (UNSETTLED_SPREAD * 100));
        for (String sys : systems) {
            chart.addSeries(sys.equals("vanilla") ? "vanilla sort shuffle" : "Creel, " + sys, names,
                    names.stream().map(n -> results.get(n).get(sys).median()).toList(),
                    names.stream().map(n -> {
                        Spread x = results.get(n).get(sys);
                        return Math.max(x.max() - x.median(), x.median() - x.min());
                    }).toList());
        }
        Files.createDirectories(out);
        System.setProperty("java.awt.headless", "true");
        BitmapEncoder.saveBitmap(chart, out.resolve("bench-spark.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        Files.writeString(out.resolve("bench-spark.md"), log.toString());
        System.out.println("table and runs: " + out.resolve("bench-spark.md").toAbsolutePath() + ", chart: "
                + out.resolve("bench-spark.png").toAbsolutePath());
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static List<Integer> range(int n) {
        List<Integer> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(i);
        }
        return l;
    }

    private static void deleteTree(Path root) throws IOException {
        try (var s = Files.walk(root)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
