package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.namespace.NodeType;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.format.BatchHeader;
import io.creel.spark.shuffle.format.ShufflePaths;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.spark.FetchFailed;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * The merged layout ({@code spark.creel.shuffle.layout = merged}): map outputs go into one Bag per
 * reduce partition, as batches in one File per lane (an executor's writer), and a reduce task reads
 * a partition's few Files. It gives Spark's results with every writer kind and with spills (several
 * batches of one map in one File); it reads exactly the registered attempt of each map, skipping
 * failed, twice-committed and forged attempts' batches; and a lost or corrupted batch makes Spark
 * rerun the map.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MergedLayoutTest {
    private static final int N = 40_000;
    private CreelTestCluster creel;
    private JavaSparkContext sc;

    @AfterEach
    void stop() {
        if (sc != null) {
            sc.stop();
        }
        if (creel != null) {
            creel.close();
        }
    }

    private void start(String master, int dramServers, String... settings) {
        creel = CreelTestCluster.start(128L << 20, 256L << 20, dramServers);
        org.apache.spark.SparkConf conf = creel.sparkConf(master, "merged")
                .set(SparkCreelConf.LAYOUT, "merged")
                .set("spark.kryo.registrator", Poison.Registrator.class.getName())
                // Map tasks flush every 2,000 records: several batches of one map in one lane's File.
                .set("spark.shuffle.spill.numElementsForceSpillThreshold", "2000");
        for (int i = 0; i < settings.length; i += 2) {
            conf.set(settings[i], settings[i + 1]);
        }
        sc = new JavaSparkContext(conf);
    }

    private static Map<Integer, Long> sums(int keys) {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < N; i++) {
            m.merge(i % keys, (long) i, Long::sum);
        }
        return m;
    }

    private static CreelClient client() {
        return CreelShuffleInspector.manager().client();
    }

    /** The shuffle's partition Bags and, in each, its lane Files. */
    private static Map<String, List<String>> layout(String dir) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String bag : CreelShuffleInspector.mapFiles(client(), dir)) {
            out.put(bag, CreelShuffleInspector.mapFiles(client(), dir + "/" + bag));
        }
        return out;
    }

    /** Counts failed task ends (of the first stage: the map stage of a test's first job). */
    private static final class Failures extends SparkListener {
        final AtomicInteger failedMaps = new AtomicInteger();
        final List<String> fetchFailures = new CopyOnWriteArrayList<>();

        @Override
        public void onTaskEnd(SparkListenerTaskEnd e) {
            if (e.reason() != Success$.MODULE$ && e.stageId() == 0) {
                failedMaps.incrementAndGet();
            }
            if (e.reason() instanceof FetchFailed f) {
                fetchFailures.add(f.message());
            }
        }
    }

    @Test
    void everyWriterKindGivesSparksResultFromAFewFilesPerPartition() {
        start("local[2]", 1);
        JavaPairRDD<Integer, Long> pairs = sc.parallelize(IntStream.range(0, N).boxed().toList(), 12)
                .mapToPair(i -> new Tuple2<>(i % 997, (long) i));
        JavaPairRDD<Integer, Long> combined = pairs.reduceByKey(Long::sum, 5);
        assertEquals(sums(997), new TreeMap<>(combined.collectAsMap()), "map-side combine");
        Map<Integer, Long> grouped = new TreeMap<>();
        pairs.groupByKey(7).collect().forEach(t -> {
            long s = 0;
            for (long v : t._2()) {
                s += v;
            }
            grouped.put(t._1(), s);
        });
        assertEquals(sums(997), grouped, "serialized records, no combine");
        List<Integer> sorted = pairs.sortByKey(true, 4).keys().collect();
        for (int i = 1; i < sorted.size(); i++) {
            assertTrue(sorted.get(i - 1) <= sorted.get(i), "sorted at " + i);
        }
        assertEquals(N, sorted.size());

        Map<String, List<String>> layout = layout(CreelShuffleInspector.directoryOf(
                CreelShuffleInspector.shuffleOf(combined)));
        assertEquals(5, layout.size(), "one Bag per reduce partition, no File per map: " + layout.keySet());
        layout.forEach((bag, files) -> {
            assertTrue(bag.startsWith("part-"), bag);
            assertTrue(files.size() >= 1 && files.size() <= 2, "one File per lane, two tasks at once: " + files);
            files.forEach(f -> assertTrue(f.matches("edriver-[01]"), f));
        });
    }

    @Test
    void batchesOfFailedAttemptsAreSkipped() throws Exception {
        start("local[2,4]", 1);
        Failures failures = new Failures();
        sc.sc().addSparkListener(failures);
        // Each map's last value is poisoned: its first attempt fails after writing batches into its lane.
        JavaPairRDD<Integer, Poison> values = sc.parallelize(IntStream.range(0, N).boxed().toList(), 4)
                .mapToPair(i -> new Tuple2<>(i % 101, new Poison(i, i % (N / 4) == N / 4 - 1)));
        JavaPairRDD<Integer, Long> sums = values.groupByKey(3).mapValues(vs -> {
            long s = 0;
            for (Poison p : vs) {
                s += p.value();
            }
            return s;
        });
        assertEquals(sums(101), new TreeMap<>(sums.collectAsMap()));
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        // (The poisoned values fail the first attempts of reduce tasks too: they are serialized there again.)
        assertEquals(4, failures.failedMaps.get(), "every map's first attempt failed");
    }

    @Test
    void twoCommittedAttemptsOfOneMapAreReadOnce() {
        start("local[2,4]", 1);
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 4)
                .mapPartitionsToPair(it -> {
                    org.apache.spark.TaskContext ctx = org.apache.spark.TaskContext.get();
                    if (ctx.partitionId() == 0 && ctx.attemptNumber() == 0) {
                        // Runs after the shuffle writer published this attempt's batches.
                        ctx.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) c -> {
                            throw new IllegalStateException("attempt 0 of map 0 fails after committing");
                        });
                    }
                    List<Tuple2<Integer, Long>> out = new ArrayList<>();
                    it.forEachRemaining(i -> out.add(new Tuple2<>(i % 101, (long) i)));
                    return out.iterator();
                }).reduceByKey(Long::sum, 3);
        assertEquals(sums(101), new TreeMap<>(sums.collectAsMap()));
    }

    @Test
    void forgedBatchesAndForeignFilesInABagAreSkipped() throws Exception {
        start("local[2]", 1);
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 3)
                .mapToPair(i -> new Tuple2<>(i % 101, (long) i)).reduceByKey(Long::sum, 4);
        sums.count(); // the map outputs stay registered
        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        for (int p = 0; p < 4; p++) {
            String bag = ShufflePaths.partitionBag(dir, p);
            // A batch of map 0 by an attempt the driver never registered, with garbage that would break the job...
            byte[] forged = new byte[BatchHeader.SIZE + 100];
            BatchHeader.encode(forged, 0, 0, 987_654_321L, 100, 0);
            write(bag + "/eforged-0", forged);
            // ...and a File that is no batch at all, holding no registered map.
            write(bag + "/eforged-1", new byte[300]);
        }
        assertEquals(sums(101), new TreeMap<>(sums.collectAsMap()));
    }

    private static void write(String path, byte[] bytes) {
        CreelNode f = Futures.await(client().create(path, NodeType.FILE), CreelShuffleInspector.timeout(), "create");
        Futures.await(f.writer().write(ByteBuffer.wrap(bytes)).thenCompose(v -> f.writer().close()),
                CreelShuffleInspector.timeout(), "write");
    }

    @Test
    void aCorruptedBatchMakesSparkRerunItsMap() throws Exception {
        // No compression: the flipped byte must reach the checksum, not trip a decompressor first.
        start("local[2,4]", 1, "spark.shuffle.compress", "false");
        Failures failures = new Failures();
        sc.sc().addSparkListener(failures);
        int keys = 5_000; // batches past the inline limit: they live in the storage server's blocks
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 3)
                .mapToPair(i -> new Tuple2<>(i % keys, (long) i)).reduceByKey(Long::sum, 4);
        assertEquals(sums(keys), new TreeMap<>(sums.collectAsMap()), "before the corruption");
        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        String bag = ShufflePaths.partitionBag(dir, 0);
        DirectoryEntry lane = Futures.await(client().list(bag), CreelShuffleInspector.timeout(), "list").get(0);
        flipAByteInTheFirstBatch(lane.path());
        assertEquals(sums(keys), new TreeMap<>(sums.collectAsMap()), "after the corruption");
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        assertFalse(failures.fetchFailures.isEmpty(), "the reducer reported the corrupted batch");
        assertTrue(failures.fetchFailures.get(0).contains("checksum mismatch"), failures.fetchFailures.get(0));
    }

    private void flipAByteInTheFirstBatch(String path) throws IOException {
        CreelNode node = Futures.await(client().lookup(path), CreelShuffleInspector.timeout(), "lookup");
        assertFalse(node.isInline(), path + " must be in blocks to be corrupted on a server");
        ByteBuffer head = ByteBuffer.allocate(BatchHeader.SIZE);
        Futures.await(node.read(0, head), CreelShuffleInspector.timeout(), "read");
        int length = BatchHeader.length(head.array(), 0);
        assertTrue(length > 256, "a batch of " + length + " bytes");
        ByteBuffer probe = ByteBuffer.allocate(64);
        Futures.await(node.read(BatchHeader.SIZE + length / 2 - 32, probe), CreelShuffleInspector.timeout(), "read");
        byte[] needle = probe.array();
        assertEquals(1, StoredBytes.flipTheMiddleOf(needle, List.of(creel.dramDir(), creel.diskDir())),
                "the batch's bytes are in exactly one place of the servers' files");
    }

    @Test
    void aDeadStorageServerMakesSparkRerunTheLostMaps() throws Exception {
        // Reads over TCP: a same-host reader that mapped the dead server's DRAM file would still read it.
        start("local[2,8]", 2, SparkCreelConf.PASS_THROUGH_PREFIX + "creel.client.local.access", "false");
        Failures failures = new Failures();
        sc.sc().addSparkListener(failures);
        int keys = 4099; // lane Files past the inline limit: in blocks, some on the server that dies
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 8)
                .mapToPair(i -> new Tuple2<>(i % keys, (long) i)).reduceByKey(Long::sum, 4);
        assertEquals(sums(keys), new TreeMap<>(sums.collectAsMap()), "before the failure");
        StorageServerRuntime victim = creel.cluster().storageServers().get(0);
        victim.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (creel.cluster().namenode().status().servers().stream()
                .noneMatch(s -> s.server().port() == victim.info().port() && s.state().equals("dead"))) {
            assertTrue(System.nanoTime() < deadline, "the namenode did not report the killed server dead");
            Thread.sleep(50);
        }
        assertEquals(sums(keys), new TreeMap<>(sums.collectAsMap()), "after a storage server died");
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        assertFalse(failures.fetchFailures.isEmpty(), "the reducers reported the lost batches as fetch failures");
    }
}
