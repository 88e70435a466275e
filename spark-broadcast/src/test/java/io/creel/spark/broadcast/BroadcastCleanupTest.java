package io.creel.spark.broadcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.spark.common.CreelTestCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing is left in Creel: destroy removes a broadcast's File, the driver's cleaner removes the
 * File of a broadcast nobody references, and the plugin removes every broadcast at the
 * application's end (checked through the namespace). What a crashed driver leaves, the
 * stale-application cleaner removes: that cleaner is spark-shuffle's, so its test on the broadcast
 * root is in spark-bundle ({@code io.creel.spark.bundle.StaleBroadcastCleanupTest}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BroadcastCleanupTest {
    private CreelTestCluster creel;
    private CreelClient client;

    @BeforeEach
    void start() {
        creel = CreelTestCluster.start(128L << 20, 128L << 20);
        client = CreelClient.connect(creel.cluster().clientConf());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (creel != null) {
            creel.close();
        }
    }

    private static long sum(JavaSparkContext sc, Broadcast<int[]> b) {
        return sc.parallelize(IntStream.range(0, 8).boxed().toList(), 4).map(i -> (long) b.value()[i]).reduce(Long::sum);
    }

    /** Broadcasts a value, uses it in a job and returns only its File's path: afterwards nothing references it. */
    private static String broadcastUseAndForget(JavaSparkContext sc) {
        Broadcast<int[]> b = CreelBroadcast.broadcast(sc, IntStream.range(0, 1000).toArray());
        assertEquals(28L, sum(sc, b));
        return ((StoredBroadcast<int[]>) b).path();
    }

    @Test
    void theCleanerRemovesABroadcastNobodyReferencesAndTheApplicationsEndRemovesTheRest() throws InterruptedException {
        String appDir;
        try (JavaSparkContext sc = new JavaSparkContext(BroadcastFixture.conf(creel, "local[2]", "cleanup"))) {
            Broadcast<int[]> kept = CreelBroadcast.broadcast(sc, IntStream.range(0, 100).toArray());
            String forgotten = broadcastUseAndForget(sc);
            appDir = forgotten.substring(0, forgotten.lastIndexOf('/'));
            assertTrue(BroadcastFixture.exists(client, forgotten));

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (BroadcastFixture.exists(client, forgotten)) {
                assertTrue(System.nanoTime() < deadline, forgotten + " still there 60 s after it became unreachable");
                System.gc();
                Thread.sleep(200);
            }
            assertEquals(List.of(kept.toString().replaceAll(".*/(broadcast-\\d+)\\)", "$1")),
                    BroadcastFixture.children(client, appDir), "the referenced broadcast stays");
            assertEquals(28L, sum(sc, kept));
        }
        assertNull(BroadcastFixture.children(client, appDir), "the application's directory goes at its end");
        assertNothingLeft();
    }

    @Test
    void destroyRemovesTheFileAndEndingTheApplicationRemovesEveryOtherBroadcast() {
        String appDir;
        try (JavaSparkContext sc = new JavaSparkContext(BroadcastFixture.conf(creel, "local[2]", "destroy"))) {
            List<Broadcast<int[]>> all = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                all.add(CreelBroadcast.broadcast(sc, IntStream.range(0, 8).map(x -> x * 2).toArray()));
            }
            for (Broadcast<int[]> b : all) {
                assertEquals(56L, sum(sc, b));
            }
            String first = ((StoredBroadcast<int[]>) all.get(0)).path();
            appDir = first.substring(0, first.lastIndexOf('/'));
            all.get(0).destroy();
            assertFalse(BroadcastFixture.exists(client, first));
            assertEquals(4, BroadcastFixture.children(client, appDir).size());
            io.creel.common.protocol.NodeExpiry expiry = client.lookup(appDir).join().info().expiry();
            assertTrue(expiry != null && expiry.session(),
                    "the broadcasts' directory is bound to the driver's session (a crash removes it): " + expiry);
            // Still referenced when the application ends: the plugin removes them.
            assertEquals(4, all.subList(1, 5).stream().filter(Broadcast::isValid).count());
        }
        assertNothingLeft();
    }

    /** Nothing of any application is left under the root: no directory, no heartbeat. */
    private void assertNothingLeft() {
        assertEquals(List.of(), BroadcastFixture.leftUnderRoot(client), "the application left nothing");
    }

    @Test
    void withoutThePluginBroadcastFailsNamingTheKey() {
        try (JavaSparkContext sc = new JavaSparkContext(creel.clientConf("local[1]", "no-plugin"))) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> CreelBroadcast.broadcast(sc, "x"));
            assertTrue(e.getMessage().contains("spark.plugins") && e.getMessage().contains(
                    CreelBroadcastPlugin.class.getName()), e.getMessage());
        }
        assertNull(BroadcastFixture.children(client, BroadcastSettings.ROOT_DEFAULT), "nothing was written");
    }

    @Test
    void aBroadcastAfterTheApplicationEndedFails() {
        JavaSparkContext sc = new JavaSparkContext(BroadcastFixture.conf(creel, "local[1]", "ended"));
        sc.stop();
        assertThrows(IllegalStateException.class, () -> CreelBroadcast.broadcast(sc, "late"));
    }

    @Test
    void aBadRootKeyStopsTheApplicationAtStartNamingTheKey() {
        SparkConf conf = BroadcastFixture.conf(creel, "local[1]", "bad-root").set(BroadcastSettings.ROOT, "/");
        Exception e = assertThrows(Exception.class, () -> new JavaSparkContext(conf).close());
        String all = LocalClusterBroadcastTest.causes(e);
        assertTrue(all.contains(BroadcastSettings.ROOT), all);
    }

    @Test
    void aValueTheSerializerRefusesLeavesNoFile() {
        try (JavaSparkContext sc = new JavaSparkContext(BroadcastFixture.conf(creel, "local[1]", "unserializable")
                .set("spark.serializer", "org.apache.spark.serializer.JavaSerializer"))) {
            CreelBroadcastException e = assertThrows(CreelBroadcastException.class,
                    () -> CreelBroadcast.broadcast(sc, new Object()));
            assertTrue(e.getMessage().contains("cannot write broadcast File"), e.getMessage());
            String appDir = e.getMessage().replaceAll("(?s).*File (\\S+)/broadcast-.*", "$1");
            assertEquals(List.of(), BroadcastFixture.children(client, appDir), "the partial File is removed");
        }
    }
}
