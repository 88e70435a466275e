package io.creel.spark.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.spark.broadcast.BroadcastSettings;
import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.CreelBroadcastPlugin;
import io.creel.spark.broadcast.StoredBroadcast;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.shuffle.cleanup.StaleShuffleCleanerAccess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stale-application cleaner (spark-shuffle's command) and the broadcasts (spark-broadcast): it
 * looks under the broadcast root by default, leaves a running application's broadcasts alone (their
 * directory expires with the driver's session) and removes what a crashed driver of an earlier
 * release (heartbeats, no expiring directory) left.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StaleBroadcastCleanupTest {
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

    private boolean exists(String path) {
        try {
            Futures.await(client.lookup(path), client.requestTimeout(), "looking up " + path);
            return true;
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    @Test
    void theStaleCleanerLeavesARunningApplicationsExpiringDirectoryAndRemovesAnEarlierReleasesCrashedDriversBroadcasts()
            throws java.io.IOException {
        assertEquals(BroadcastSettings.ROOT_DEFAULT, StaleShuffleCleanerAccess.broadcastRootDefault(),
                "the cleaner looks where the plugin writes");
        String root = BroadcastSettings.ROOT_DEFAULT;
        String app;
        try (JavaSparkContext sc = new JavaSparkContext(creel.sparkConf("local[1]", "beating")
                .set("spark.plugins", CreelBroadcastPlugin.class.getName()))) {
            Broadcast<int[]> b = CreelBroadcast.broadcast(sc, IntStream.range(0, 8).toArray());
            String path = ((StoredBroadcast<int[]>) b).path();
            app = path.substring(root.length() + 1, path.lastIndexOf('/'));
            // A driver of an earlier release (no expiring directory) that crashed an hour ago: its
            // directory and a beat that stopped.
            Duration t = client.requestTimeout();
            Futures.await(client.create(root + "/_live", NodeType.TABLE), t, "table");
            Futures.await(client.create(root + "/app-crashed", NodeType.DIRECTORY), t, "mkdir");
            try (var out = Futures.await(client.create(root + "/app-crashed/broadcast-1", NodeType.FILE), t, "create")
                    .outputStream()) {
                out.write(new byte[100]);
            }
            StaleShuffleCleanerAccess.beat(client, root, "app-crashed", System.currentTimeMillis() - 3_600_000);

            // The command with its default roots: the shuffle root and the broadcast root.
            ByteArrayOutputStream report = new ByteArrayOutputStream();
            assertEquals(0, StaleShuffleCleanerAccess.main(new String[] {"--namenode", creel.address()},
                    new PrintStream(report, true, StandardCharsets.UTF_8), System.err));
            String text = report.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains(root + "/app-crashed") && text.contains("removed"), text);
            assertTrue(text.lines().anyMatch(l -> l.startsWith(root + "/" + app + " ") && l.contains("live")
                    && l.contains("expires by itself")), text);
            assertFalse(exists(root + "/app-crashed"));
            assertFalse(exists(root + "/_live/app-crashed"));
            assertTrue(exists(path), "the running application's broadcast stays");
            long sum = sc.parallelize(IntStream.range(0, 8).boxed().toList(), 4).map(i -> (long) b.value()[i])
                    .reduce(Long::sum);
            assertEquals(28L, sum);
        }
        assertFalse(exists(root + "/" + app), "the application's end removed its broadcasts");
    }
}
