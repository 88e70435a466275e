package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.shuffle.format.MapOutputIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A corrupted byte reruns the map, never gives a wrong result: between the stages of a job a byte
 * of a stored map output is flipped in the DRAM server's region file; the reduce stage's read finds
 * the piece's checksum wrong, fails the fetch of that map, Spark reruns the map (a new attempt File
 * appears) and the job's answer is right.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CorruptedMapOutputTest {
    private static final int N = 40_000;
    /** Enough distinct keys that each map output is larger than Creel keeps inline (4 KiB) and lives in a block. */
    private static final int KEYS = 5_000;
    private static CreelTestCluster creel;
    private static JavaSparkContext sc;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(128L << 20, 128L << 20);
        // No compression: the flipped byte must reach the checksum, not trip a decompressor first
        // (that path is covered too: a piece that does not decompress is checked at once).
        sc = new JavaSparkContext(creel.sparkConf("local[2]", "corruption").set("spark.shuffle.compress", "false"));
    }

    @AfterAll
    static void stop() {
        if (sc != null) {
            sc.stop();
        }
        if (creel != null) {
            creel.close();
        }
    }

    @Test
    void aFlippedStoredByteMakesSparkRerunTheMapAndTheResultIsRight() throws Exception {
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 3)
                .mapToPair(i -> new Tuple2<>(i % KEYS, (long) i)).reduceByKey(Long::sum, 4);
        Map<Integer, Long> expected = new TreeMap<>();
        for (int i = 0; i < N; i++) {
            expected.merge(i % KEYS, (long) i, Long::sum);
        }
        assertEquals(expected, new TreeMap<>(sums.collectAsMap()), "before the corruption");

        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        CreelClient client = CreelShuffleInspector.manager().client();
        List<String> before = CreelShuffleInspector.mapFiles(client, dir);
        assertEquals(3, before.size());
        String victim = before.get(0);
        flipAByteOfAPiece(client, dir + "/" + victim, 4);

        // The second job reuses the map outputs: its reduce tasks read the corrupted piece.
        assertEquals(expected, new TreeMap<>(sums.collectAsMap()), "after the corruption");
        String mapIndex = victim.substring(0, victim.lastIndexOf('-') + 1);
        List<String> after = CreelShuffleInspector.mapFiles(client, dir);
        assertTrue(after.stream().filter(n -> n.startsWith(mapIndex)).count() >= 2,
                "the corrupted map was rerun as a new attempt: " + after);
    }

    /** Flips one byte in the middle of the first non-empty piece of {@code path}, in its storage server's file. */
    private static void flipAByteOfAPiece(CreelClient client, String path, int partitions) throws IOException {
        CreelNode node = Futures.await(client.lookup(path), CreelShuffleInspector.timeout(), "lookup");
        ByteBuffer tail = ByteBuffer.allocate(MapOutputIndex.TRAILER);
        Futures.await(node.read(node.length() - MapOutputIndex.TRAILER, tail), CreelShuffleInspector.timeout(), "read");
        int runs = MapOutputIndex.runsOf(tail.flip(), partitions, path);
        int size = MapOutputIndex.encodedSize(partitions, runs);
        ByteBuffer raw = ByteBuffer.allocate(size);
        Futures.await(node.read(node.length() - size, raw), CreelShuffleInspector.timeout(), "read");
        MapOutputIndex index = MapOutputIndex.decode(raw.flip(), partitions, node.length(), path);
        int p = 0;
        while (index.length(0, p) < 256) {
            p++;
        }
        long at = index.offset(0, p) + index.length(0, p) / 2 - 32;
        ByteBuffer probe = ByteBuffer.allocate(64);
        Futures.await(node.read(at, probe), CreelShuffleInspector.timeout(), "read");
        byte[] needle = probe.array();

        assertEquals(1, StoredBytes.flipTheMiddleOf(needle, List.of(creel.dramDir(), creel.diskDir())),
                "the piece's bytes are in exactly one place of the servers' files");
    }

}
