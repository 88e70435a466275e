package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.shuffle.format.MapOutputIndex;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * No shuffle byte touches the executor's local disk: with {@code spark.local.dir} pointing at a
 * directory of the test's own, a job with a map-side combine, one without, and one whose map tasks
 * run out of memory (a 64 MiB executor) leave no shuffle data and no spill file there. What Spark
 * still makes there is its block manager's empty directory tree (created at start, used for cached
 * blocks and broadcasts that do not fit in memory), not shuffle data.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class NoLocalShuffleFilesTest {
    private static CreelTestCluster creel;
    private static JavaSparkContext sc;
    private static Path localDir;

    @BeforeAll
    static void start() throws IOException {
        creel = CreelTestCluster.start(512L << 20, 512L << 20);
        localDir = Files.createTempDirectory("creel-local-dir-");
        sc = new JavaSparkContext(creel.sparkConf("local[2]", "no-local-files")
                .set("spark.local.dir", localDir.toString())
                // A small executor: 0.6 x 64 MiB of execution memory for two tasks, so map tasks flush
                // their buffers into Creel several times (real memory pressure, not a forced count).
                .set("spark.testing.memory", String.valueOf(64L << 20))
                .set("spark.testing.reservedMemory", "0"));
    }

    @AfterAll
    static void stop() {
        if (sc != null) {
            sc.stop();
        }
        if (creel != null) {
            creel.close();
        }
        if (localDir != null) {
            CreelTestCluster.deleteTree(localDir);
        }
    }

    private static JavaPairRDD<Integer, Long> pairs(int n, int keys) {
        return sc.parallelize(IntStream.range(0, n).boxed().toList(), 4)
                .mapToPair(i -> new Tuple2<>((i * 7919) % keys, (long) i));
    }

    @Test
    void combiningNonCombiningAndSpillingJobsWriteNoShuffleFileToTheLocalDisk() {
        Map<Integer, Long> sums = new TreeMap<>(pairs(200_000, 1000).reduceByKey(Long::sum, 8).collectAsMap());
        Map<Integer, Long> expected = new TreeMap<>();
        for (int i = 0; i < 200_000; i++) {
            expected.merge((i * 7919) % 1000, (long) i, Long::sum);
        }
        assertEquals(expected, sums, "map-side combine");

        assertEquals(200_000L, pairs(200_000, 5000).partitionBy(new HashPartitioner(16)).count(), "no combine");

        // About 3 M records of ~100 bytes per map task: far more than a task's share of 38 MiB.
        JavaPairRDD<Integer, String> big = sc.parallelize(IntStream.range(0, 4).boxed().toList(), 4)
                .flatMapToPair(m -> IntStream.range(0, 300_000)
                        .mapToObj(i -> new Tuple2<>(i, "v" + m + "-" + i + "-" + "x".repeat(80))).iterator())
                .partitionBy(new HashPartitioner(16));
        assertEquals(1_200_000L, big.count(), "a spilling job");
        ShuffleDependency<?, ?, ?> spilled = CreelShuffleInspector.shuffleOf(big);
        assertTrue(maxRuns(CreelShuffleInspector.directoryOf(spilled), 16) > 1,
                "the map tasks ran short of memory and flushed into Creel more than once");

        List<Path> shuffleFiles = files().stream().filter(p -> {
            String name = p.getFileName().toString();
            return name.startsWith("shuffle_") || name.startsWith("temp_shuffle_") || name.startsWith("temp_local_");
        }).toList();
        assertEquals(List.of(), shuffleFiles, "shuffle data or spill files in spark.local.dir");
        assertEquals(List.of(), files().stream().filter(p -> {
            try {
                return Files.size(p) > 0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).toList(), "no file with content in spark.local.dir");
    }

    private static List<Path> files() {
        try (Stream<Path> s = Files.walk(localDir)) {
            return s.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The most runs any map output of the shuffle in {@code dir} has (1 when no task had to flush early). */
    private static int maxRuns(String dir, int partitions) {
        var client = CreelShuffleInspector.manager().client();
        int most = 0;
        for (String name : CreelShuffleInspector.mapFiles(client, dir)) {
            CreelNode node = Futures.await(client.lookup(dir + "/" + name), CreelShuffleInspector.timeout(), "lookup");
            ByteBuffer tail = ByteBuffer.allocate(MapOutputIndex.TRAILER);
            Futures.await(node.read(node.length() - MapOutputIndex.TRAILER, tail), CreelShuffleInspector.timeout(),
                    "read");
            most = Math.max(most, MapOutputIndex.runsOf(tail.flip(), partitions, name));
        }
        return most;
    }
}
