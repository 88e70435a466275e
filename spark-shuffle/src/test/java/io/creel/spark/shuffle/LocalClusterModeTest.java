package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.LocalClusterMode;
import io.creel.spark.common.SparkCreelConf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Separate executor JVMs ({@code local-cluster}) talking to a Creel cluster in the test JVM:
 * shuffle output outlives the executor that wrote it, dynamic allocation needs no external
 * shuffle service, an executor killed half-way through writing costs only a rerun of its task,
 * and same-host executors reach the DRAM tier through its mapped file.
 */
@Tag("matrix")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LocalClusterModeTest {
    private static final int N = 200_000;
    private static CreelTestCluster creel;
    private JavaSparkContext sc;

    @BeforeAll
    static void startCreel() {
        // Two hosts: the reliability tests replicate map outputs, which Spark relies on only then.
        creel = CreelTestCluster.start(256L << 20, 512L << 20, 1, 2);
    }

    @AfterAll
    static void stopCreel() {
        if (creel != null) {
            creel.close();
        }
    }

    @AfterEach
    void stopSpark() {
        if (sc != null) {
            sc.stop();
            sc = null;
        }
    }

    private JavaSparkContext start(String name, SparkConf extra, String... executorJavaOptions) {
        SparkConf conf = LocalClusterMode.prepare(creel.sparkConf(LocalClusterMode.master(2, 1024), name),
                executorJavaOptions);
        for (Tuple2<String, String> kv : extra.getAll()) {
            conf.set(kv._1(), kv._2());
        }
        sc = new JavaSparkContext(conf);
        return sc;
    }

    private static Map<Integer, Long> expected() {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < N; i++) {
            m.merge(i % 1009, (long) i, Long::sum);
        }
        return m;
    }

    private JavaPairRDD<Integer, Long> sums(int maps) {
        return sc.parallelize(IntStream.range(0, N).boxed().toList(), maps)
                .mapToPair(i -> new Tuple2<>(i % 1009, (long) i)).reduceByKey(Long::sum, 6);
    }

    /** Counts task starts of shuffle map stages, and removed executors. */
    private static final class Watch extends SparkListener {
        final AtomicInteger mapTasks = new AtomicInteger();
        final AtomicInteger removed = new AtomicInteger();
        volatile int resultStage = -1;

        @Override
        public void onTaskStart(SparkListenerTaskStart e) {
            if (e.stageId() != resultStage) {
                mapTasks.incrementAndGet();
            }
        }

        @Override
        public void onExecutorRemoved(SparkListenerExecutorRemoved e) {
            removed.incrementAndGet();
        }
    }

    private static void awaitExecutors(JavaSparkContext sc, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (sc.sc().getExecutorIds().size() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + sc.sc().getExecutorIds().size() + " of " + n
                        + " executors registered within 120 s");
            }
            Thread.sleep(100);
        }
    }

    @Test
    void aReduceStageCompletesWithoutRerunningMapsAfterTheExecutorsThatWroteThemAreGone() throws Exception {
        start("reliable", new SparkConf().set(SparkCreelConf.REPLICATION, "2"));
        awaitExecutors(sc, 2);
        Watch watch = new Watch();
        sc.sc().addSparkListener(watch);
        JavaPairRDD<Integer, Long> sums = sums(8);
        assertEquals(expected(), new TreeMap<>(sums.collectAsMap()));
        List<String> writers = scala.jdk.javaapi.CollectionConverters.asJava(sc.sc().getExecutorIds());

        // Every executor that wrote map output goes away.
        assertTrue(sc.sc().killExecutors(scala.jdk.javaapi.CollectionConverters.asScala(writers).toSeq()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (watch.removed.get() < writers.size() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(writers.size(), watch.removed.get(), "the writers are gone");
        sc.sc().requestTotalExecutors(2, 0, scala.collection.immutable.Map$.MODULE$.empty());
        sc.sc().requestExecutors(2);
        awaitExecutors(sc, 1);

        int mapTasksBefore = watch.mapTasks.get();
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        watch.resultStage = -2;
        JavaPairRDD<Integer, Long> again = sums.mapValues(v -> v);
        assertEquals(expected(), new TreeMap<>(again.collectAsMap()));
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        // Only result tasks ran: 6 reduce partitions.
        assertEquals(mapTasksBefore + 6, watch.mapTasks.get(), "no map task ran again");
    }

    @Test
    void dynamicAllocationWorksWithoutTheExternalShuffleService() {
        SparkConf dyn = new SparkConf()
                .set(SparkCreelConf.REPLICATION, "2")
                .set("spark.dynamicAllocation.enabled", "true")
                .set("spark.dynamicAllocation.shuffleTracking.enabled", "false")
                .set("spark.shuffle.service.enabled", "false")
                .set("spark.dynamicAllocation.minExecutors", "1")
                .set("spark.dynamicAllocation.maxExecutors", "2")
                .set("spark.dynamicAllocation.executorIdleTimeout", "2s");
        // Without reliable (replicated) shuffle storage Spark refuses this configuration at start.
        start("dynamic", dyn);
        assertEquals(expected(), new TreeMap<>(sums(8).collectAsMap()));
    }

    @Test
    void anExecutorKilledHalfWayThroughWritingCostsOnlyARerunOfItsTask() throws Exception {
        start("killed", new SparkConf().set("spark.kryo.registrator", Poison.Registrator.class.getName())
                .set("spark.task.maxFailures", "4"), "-Dcreel.test.poison.halt=true");
        awaitExecutors(sc, 2);
        // Map 1's first attempt halts its executor JVM while writing its output into Creel.
        JavaPairRDD<Integer, Poison> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 4)
                .mapToPair(i -> new Tuple2<>(i % 1009, new Poison(i, i == N / 4 + N / 8)))
                .reduceByKey((a, b) -> new Poison(a.value() + b.value(), a.marked() || b.marked()), 6);
        Map<Integer, Long> got = new TreeMap<>();
        for (Tuple2<Integer, Poison> t : sums.collect()) {
            got.put(t._1(), t._2().value());
        }
        assertEquals(expected(), got);
        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        try (CreelClient client = CreelClient.connect(creel.cluster().clientConf())) {
            List<DirectoryEntry> files = Futures.await(client.list(dir), client.requestTimeout(), "list");
            List<DirectoryEntry> map1 = files.stream().filter(e -> e.name().startsWith("map-1-")).toList();
            assertEquals(2, map1.size(), "the killed attempt's file is left, next to the rerun's: " + map1);
            // Its lease went with its connection; nothing of it was ever published.
            assertTrue(map1.stream().anyMatch(e -> e.info().length() == 0), "the killed attempt never committed: "
                    + map1);
        }
    }

    @Test
    void executorsOnTheStorageServersHostMapTheDramTierFile() {
        start("mapped", new SparkConf());
        Path dramDir = creel.dramDir();
        assertEquals(expected(), new TreeMap<>(sums(4).collectAsMap()));
        String needle = dramDir.toString();
        // Each executor JVM reports whether it has the DRAM server's file mapped (it serves no blocks itself).
        List<Boolean> mapped = sc.parallelize(IntStream.range(0, 8).boxed().toList(), 8).map(i -> {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                if (line.contains(needle)) {
                    return true;
                }
            }
            return false;
        }).collect();
        assertTrue(mapped.contains(true), "no executor maps " + needle);
        assertFalse(needle.isEmpty());
    }
}
