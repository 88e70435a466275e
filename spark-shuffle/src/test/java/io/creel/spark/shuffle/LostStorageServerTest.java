package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.SparkCreelConf;
import io.creel.storage.runtime.StorageServerRuntime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.FetchFailed;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A storage server holding shuffle data dies between the map and the reduce stage: the reducer
 * raises FetchFailedException naming the map output, Spark reruns the lost maps (their new
 * outputs go to the surviving servers), and the job gives the right answer.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LostStorageServerTest {
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

    private void awaitDead(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (creel.cluster().namenode().status().servers().stream()
                .noneMatch(s -> s.server().port() == port && s.state().equals("dead"))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the namenode did not report the killed server dead within 30 s");
            }
            Thread.sleep(50);
        }
    }

    @Test
    void aDeadStorageServerMakesSparkRerunTheLostMapsAndTheJobStillSucceeds() throws Exception {
        creel = CreelTestCluster.start(64L << 20, 256L << 20, 2);
        // Reads over TCP, as from a server on another host: a same-host reader that has mapped the dead
        // server's DRAM file would keep reading its (intact) bytes.
        sc = new JavaSparkContext(creel.sparkConf("local[2,8]", "lost-server")
                .set(SparkCreelConf.PASS_THROUGH_PREFIX + "creel.client.local.access", "false"));
        List<String> fetchFailures = new CopyOnWriteArrayList<>();
        sc.sc().addSparkListener(new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd e) {
                if (e.reason() instanceof FetchFailed f) {
                    fetchFailures.add(f.message());
                }
            }
        });
        int n = 50_000;
        // Enough distinct keys that each map output (~4k combined pairs, tens of KiB) is larger than the
        // namenode's inline limit (4 KiB by default): the outputs live in blocks of the storage servers,
        // so the server that dies takes some of them with it.
        int keys = 4099;
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, n).boxed().toList(), 8)
                .mapToPair(i -> new Tuple2<>(i % keys, (long) i)).reduceByKey(Long::sum, 4);
        Map<Integer, Long> expected = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            expected.merge(i % keys, (long) i, Long::sum);
        }
        assertEquals(expected, new TreeMap<>(sums.collectAsMap()), "before the failure");

        // The map outputs stay registered; the next job goes straight to the reduce stage.
        StorageServerRuntime victim = creel.cluster().storageServers().get(0);
        victim.close();
        // The namenode notices by missed heartbeats (1.5 s here) and stops allocating there; until then a
        // rerun map may be given blocks on the dead server and fail, which Spark retries as it would anyway.
        awaitDead(victim.info().port());
        assertEquals(expected, new TreeMap<>(sums.collectAsMap()), "after a storage server died");
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        assertFalse(fetchFailures.isEmpty(), "the reducers reported the lost map outputs as fetch failures");
        assertTrue(fetchFailures.get(0).contains("Creel file") && fetchFailures.get(0).contains("/map-"),
                fetchFailures.get(0));
    }
}
