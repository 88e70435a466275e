package io.creel.spark.bench;

import io.creel.common.conf.ConfValues;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeKeys;
import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.CreelBroadcastPlugin;
import io.creel.spark.common.SparkCreelConf;
import io.creel.storage.StorageKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * The broadcast bench ({@code spark-broadcast/bench.sh ...}): a large byte array
 * broadcast and read by every task, with Spark's torrent broadcast and with Creel in the same
 * application on {@code local-cluster} (separate executor JVMs, the same executors for both).
 * For each size and run it measures the time to first use (from the driver's {@code broadcast}
 * call to the first task holding the value) and the stage time (the job reading it, every task
 * touching the value), and prints Creel / torrent ratios (target at 1 GiB: stage time <= 0.5).
 *
 * <p>Arguments: {@code --sizes 256m,1g} {@code --executors 3} {@code --executor-memory 3g}
 * {@code --tasks-per-executor 2} {@code --runs 2}.
 */
public final class SparkBroadcastBench {
    private List<Long> sizes = List.of(256L << 20, 1L << 30);
    private int executors = 3;
    private String executorMemory = "3g";
    private int tasksPerExecutor = 2;
    private int runs = 2;

    public static void main(String[] args) throws Exception {
        SparkBroadcastBench b = new SparkBroadcastBench();
        b.parse(args);
        b.run();
    }

    private void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(v.split(",")).map(ConfValues::parseSize).toList();
                case "--executors" -> executors = Integer.parseInt(v);
                case "--executor-memory" -> executorMemory = v;
                case "--tasks-per-executor" -> tasksPerExecutor = Integer.parseInt(v);
                case "--runs" -> runs = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (see the class comment of " + SparkBroadcastBench.class.getName() + ")");
            }
            i++;
        }
        for (long s : sizes) {
            if (s < 1 || s > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("--sizes: " + s + " bytes is not a size a byte[] can have");
            }
        }
    }

    /** One measurement: milliseconds to first use and of the stage. */
    private record Timing(double firstUseMs, double stageMs) {
    }

    private void run() throws IOException, InterruptedException {
        System.out.printf("Spark broadcast bench on local-cluster[%d executors, %s each], %d tasks per executor, "
                + "%d runs; load average %s%n", executors, executorMemory, tasksPerExecutor, runs, load());
        Path dram = Files.createTempDirectory(Path.of("/dev/shm"), "creel-broadcast-bench-");
        long largest = sizes.stream().mapToLong(Long::longValue).max().orElse(0);
        try (MiniCluster cluster = MiniCluster.builder().dram(largest + (256L << 20)).servers(1, 0).dramDir(dram)
                .set(StorageKeys.REGION_SIZE, "64m")
                // A destroyed broadcast's blocks come back after the reuse delay; the bench waits it out.
                .set(NamenodeKeys.REUSE_DELAY, "1s").start();
             JavaSparkContext sc = new JavaSparkContext(conf(cluster.address().toUri()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (sc.sc().statusTracker().getExecutorInfos().length < executors + 1) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("executors did not register within 120 s");
                }
                Thread.sleep(100);
            }
            // Warm the executors (class loading, first connections) with a small broadcast of each kind.
            byte[] small = new byte[1 << 20];
            measure(sc, small, false);
            measure(sc, small, true);
            List<String> lines = new ArrayList<>();
            for (long size : sizes) {
                byte[] value = new byte[(int) size];
                new Random(size).nextBytes(value);
                List<Timing> torrent = new ArrayList<>();
                List<Timing> creel = new ArrayList<>();
                for (int r = 0; r < runs; r++) {
                    // Alternate the order so neither always runs on a warmer JVM.
                    if (r % 2 == 0) {
                        torrent.add(measure(sc, value, false));
                        creel.add(measure(sc, value, true));
                    } else {
                        creel.add(measure(sc, value, true));
                        torrent.add(measure(sc, value, false));
                    }
                    System.out.printf("  %s run %d: torrent first use %.0f ms, stage %.0f ms; creel first use %.0f ms, "
                                    + "stage %.0f ms%n", ConfValues.formatSize(size), r + 1, torrent.get(r).firstUseMs(),
                            torrent.get(r).stageMs(), creel.get(r).firstUseMs(), creel.get(r).stageMs());
                }
                double tf = median(torrent.stream().map(Timing::firstUseMs).toList());
                double ts = median(torrent.stream().map(Timing::stageMs).toList());
                double cf = median(creel.stream().map(Timing::firstUseMs).toList());
                double cs = median(creel.stream().map(Timing::stageMs).toList());
                String target = size >= 1L << 30 ? String.format("   (target stage <= 0.50 at 1 GiB: %s)",
                        cs / ts <= 0.5 ? "met" : "missed") : "";
                lines.add(String.format("%-6s first use: torrent %6.0f ms  creel %6.0f ms  creel/torrent %.2f   "
                                + "stage: torrent %6.0f ms  creel %6.0f ms  creel/torrent %.2f%s",
                        ConfValues.formatSize(size), tf, cf, cf / tf, ts, cs, cs / ts, target));
            }
            System.out.println("medians (load average now " + load() + "):");
            lines.forEach(System.out::println);
        } finally {
            try (var s = Files.walk(dram)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private Timing measure(JavaSparkContext sc, byte[] value, boolean creel) {
        int tasks = executors * tasksPerExecutor;
        long start = System.currentTimeMillis();
        Broadcast<byte[]> b = creel ? CreelBroadcast.broadcast(sc, value) : sc.broadcast(value);
        long submitted = System.currentTimeMillis();
        List<long[]> seen = sc.parallelize(IntStream.range(0, tasks).boxed().toList(), tasks).map(i -> {
            byte[] v = b.value();
            long at = System.currentTimeMillis();
            long sum = 0;
            for (int k = 0; k < v.length; k += 4096) {
                sum += v[k];
            }
            return new long[] {at, v.length, sum};
        }).collect();
        long end = System.currentTimeMillis();
        long expectedSum = 0;
        for (int k = 0; k < value.length; k += 4096) {
            expectedSum += value[k];
        }
        long firstUse = Long.MAX_VALUE;
        for (long[] s : seen) {
            if (s[1] != value.length || s[2] != expectedSum) {
                throw new IllegalStateException((creel ? "Creel" : "torrent") + " broadcast read back wrong: "
                        + s[1] + " bytes, sample sum " + s[2] + " (expected " + value.length + ", " + expectedSum + ")");
            }
            firstUse = Math.min(firstUse, s[0]);
        }
        b.destroy(true);
        try {
            Thread.sleep(1500); // the reuse delay (1 s), so the next broadcast finds the freed blocks
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between measurements", e);
        }
        return new Timing(firstUse - start, end - submitted);
    }

    private SparkConf conf(String creelAddress) throws IOException {
        String home = System.getenv("SPARK_HOME");
        if (home == null) {
            throw new IllegalStateException("SPARK_HOME must name a directory (bench.sh sets it)");
        }
        Files.createDirectories(Path.of(home, "jars"));
        int memMb = (int) (ConfValues.parseSize(executorMemory) >> 20);
        return new SparkConf().setMaster("local-cluster[" + executors + ",1," + memMb + "]")
                .setAppName("broadcast-bench")
                .set("spark.home", home)
                .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.executor.memory", executorMemory)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.plugins", CreelBroadcastPlugin.class.getName())
                .set(SparkCreelConf.NAMENODE_ADDRESS, creelAddress)
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
    }

    private static double median(List<Double> xs) {
        List<Double> s = xs.stream().sorted().toList();
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
