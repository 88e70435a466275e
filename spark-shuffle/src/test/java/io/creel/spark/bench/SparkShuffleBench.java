package io.creel.spark.bench;

import io.creel.storage.StorageKeys;
import io.creel.common.conf.ConfKeys;
import io.creel.minicluster.MiniCluster;
import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.CreelShuffleManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import scala.Tuple2;

/**
 * {@code bin/creel bench spark} (today {@code spark-shuffle/bench.sh}): the Crail paper's Spark
 * GroupBy job and a sort of 100-byte records, each run with Spark's sort shuffle and with Creel in
 * the same run, on {@code local-cluster} (separate executor JVMs) against an in-process Creel
 * cluster. Prints each job's runtimes and the ratio Creel / vanilla, and writes a bar chart.
 *
 * <p>Only the shuffle job is timed: the input is generated, cached and counted first (as the
 * paper's GroupBy does). Each job runs {@code --runs} times after one warm-up; the median counts.
 *
 * <pre>
 * --maps 8 --pairs 131072 --value 1024 --reducers 8   GroupBy: maps x pairs key-value pairs of value bytes (1 GiB)
 * --sort-records 10000000                              sort: 100-byte records (1 GB)
 * --executors 2 --executor-memory 4g --runs 3 --png FILE --jobs groupby,sort
 * --jfr DIR                                            executors write flight recordings (profiles) there
 * </pre>
 */
public final class SparkShuffleBench {
    private int maps = 8;
    private int pairs = 131_072;
    private int valueSize = 1024;
    private int reducers = 8;
    private long sortRecords = 10_000_000;
    private int executors = 2;
    private String executorMemory = "4g";
    private int runs = 3;
    private Path png = Path.of("spark-shuffle/target/bench-spark.png");
    private List<String> jobs = List.of("groupby", "sort");
    /** Where executors of the Creel runs write Java Flight Recordings, or null for none. */
    private Path jfr;

    public static void main(String[] args) throws Exception {
        SparkShuffleBench b = new SparkShuffleBench();
        b.parse(args);
        b.run();
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--maps" -> maps = Integer.parseInt(need(args[i], v));
                case "--pairs" -> pairs = Integer.parseInt(need(args[i], v));
                case "--value" -> valueSize = Integer.parseInt(need(args[i], v));
                case "--reducers" -> reducers = Integer.parseInt(need(args[i], v));
                case "--sort-records" -> sortRecords = Long.parseLong(need(args[i], v));
                case "--executors" -> executors = Integer.parseInt(need(args[i], v));
                case "--executor-memory" -> executorMemory = need(args[i], v);
                case "--runs" -> runs = Integer.parseInt(need(args[i], v));
                case "--png" -> png = Path.of(need(args[i], v));
                case "--jobs" -> jobs = Arrays.asList(need(args[i], v).split(","));
                case "--jfr" -> jfr = Path.of(need(args[i], v)).toAbsolutePath();
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (see the class comment of " + SparkShuffleBench.class.getName() + ")");
            }
            i++;
        }
    }

    private static String need(String key, String v) {
        if (v == null) {
            throw new IllegalArgumentException(key + " needs a value");
        }
        return v;
    }

    private SparkConf conf(String name, String creelAddress) throws IOException {
        String home = System.getenv("SPARK_HOME");
        if (home == null) {
            throw new IllegalStateException("SPARK_HOME must name a directory (bench.sh sets it)");
        }
        Files.createDirectories(Path.of(home, "jars"));
        int memMb = (int) (io.creel.common.conf.ConfValues.parseSize(executorMemory) >> 20);
        SparkConf c = new SparkConf().setMaster("local-cluster[" + executors + ",1," + memMb + "]").setAppName(name)
                .set("spark.home", home)
                .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.executor.memory", executorMemory)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
        if (creelAddress != null) {
            c.set("spark.shuffle.manager", CreelShuffleManager.class.getName())
                    .set(SparkCreelConf.NAMENODE_ADDRESS, creelAddress);
        }
        if (jfr != null) {
            Files.createDirectories(jfr);
            c.set("spark.executor.extraJavaOptions", "-XX:StartFlightRecording=settings=profile,filename="
                    + jfr.resolve(name + "-executor-%p.jfr"));
        }
        return c;
    }

    /** Median seconds of {@code runs} timed runs after one warm-up. */
    private double time(String what, Runnable job) {
        job.run();
        double[] s = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            job.run();
            s[i] = (System.nanoTime() - t0) / 1e9;
            System.out.printf("  %s run %d: %.2f s%n", what, i + 1, s[i]);
        }
        Arrays.sort(s);
        return s[runs / 2];
    }

    private Map<String, Double> runAll(SparkConf conf) {
        Map<String, Double> out = new LinkedHashMap<>();
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            if (jobs.contains("groupby")) {
                int p = pairs;
                int v = valueSize;
                JavaPairRDD<Integer, byte[]> input = sc.parallelize(range(maps), maps).flatMapToPair(m -> {
                    Random r = new Random(m);
                    List<Tuple2<Integer, byte[]>> kv = new ArrayList<>(p);
                    for (int i = 0; i < p; i++) {
                        byte[] b = new byte[v];
                        r.nextBytes(b);
                        kv.add(new Tuple2<>(r.nextInt(Integer.MAX_VALUE), b));
                    }
                    return kv.iterator();
                }).persist(StorageLevel.MEMORY_ONLY());
                long n = input.count();
                out.put("groupby", time("groupby", () -> check(input.groupByKey(reducers).count(), n, "groupby")));
                input.unpersist(true);
            }
            if (jobs.contains("sort")) {
                long per = sortRecords / maps;
                JavaPairRDD<Long, byte[]> input = sc.parallelize(range(maps), maps).flatMapToPair(m -> {
                    Random r = new Random(1000 + m);
                    List<Tuple2<Long, byte[]>> kv = new ArrayList<>((int) per);
                    for (long i = 0; i < per; i++) {
                        byte[] b = new byte[92]; // an 8-byte key and 92 bytes of payload: 100-byte records
                        r.nextBytes(b);
                        kv.add(new Tuple2<>(r.nextLong(), b));
                    }
                    return kv.iterator();
                }).persist(StorageLevel.MEMORY_ONLY());
                long n = input.count();
                out.put("sort", time("sort", () -> check(input.sortByKey(true, reducers)
                        .mapPartitions(it -> {
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
                        }).reduce(Long::sum), n, "sort")));
                input.unpersist(true);
            }
        }
        return out;
    }

    /** The sort must return every record; GroupBy returns the number of distinct keys, at most the records. */
    private static void check(long got, long expected, String job) {
        if (job.equals("sort") ? got != expected : got <= 0 || got > expected) {
            throw new IllegalStateException(job + " produced " + got + " records from " + expected);
        }
    }

    private static List<Integer> range(int n) {
        List<Integer> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(i);
        }
        return l;
    }

    private void run() throws IOException {
        System.out.printf("Spark shuffle bench on local-cluster[%d executors, %s each]: GroupBy %d maps x %d pairs x "
                        + "%d B (%.2f GiB) into %d reducers; sort of %d 100-byte records (%.2f GB)%n", executors,
                executorMemory, maps, pairs, valueSize, (double) maps * pairs * valueSize / (1L << 30), reducers,
                sortRecords, sortRecords * 100 / 1e9);
        Path dram = Files.createTempDirectory(Path.of("/dev/shm"), "creel-spark-bench-");
        Path disk = Files.createTempDirectory("creel-spark-bench-disk-");
        Map<String, Double> vanilla;
        Map<String, Double> creel;
        try (MiniCluster cluster = MiniCluster.builder().dram(6L << 30).disk(8L << 30).dramDir(dram).diskDir(disk)
                .set(StorageKeys.REGION_SIZE, "64m").start()) {
            System.out.println("vanilla (Spark's sort shuffle):");
            vanilla = runAll(conf("bench-vanilla", null));
            System.out.println("Creel (" + cluster.address().toUri() + "):");
            creel = runAll(conf("bench-creel", cluster.address().toUri()));
        } finally {
            deleteTree(dram);
            deleteTree(disk);
        }
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
                .title("Spark shuffle: runtime, vanilla vs Creel (lower is better)").xAxisTitle("job")
                .yAxisTitle("seconds (median)").build();
        List<String> names = new ArrayList<>(vanilla.keySet());
        chart.addSeries("vanilla sort shuffle", names, names.stream().map(vanilla::get).toList());
        chart.addSeries("Creel", names, names.stream().map(creel::get).toList());
        for (String job : names) {
            double ratio = creel.get(job) / vanilla.get(job);
            System.out.printf("%-8s vanilla %7.2f s   creel %7.2f s   creel/vanilla %.2f   (target <= 0.70: %s)%n",
                    job, vanilla.get(job), creel.get(job), ratio, ratio <= 0.70 ? "met" : "missed");
        }
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        System.setProperty("java.awt.headless", "true");
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        System.out.println("chart: " + png.toAbsolutePath());
    }

    private static void deleteTree(Path root) throws IOException {
        try (var s = Files.walk(root)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
