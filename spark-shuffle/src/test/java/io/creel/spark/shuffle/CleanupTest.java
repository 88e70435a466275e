package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Expiry;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.cleanup.StaleShuffleCleaner;
import io.creel.spark.shuffle.cleanup.StaleShuffleCleanerAccess;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Shuffle data goes away: a shuffle's directory when Spark unregisters the shuffle, the
 * application's directory when the application stops (a crashed driver's when its session expires:
 * {@code cleanup.CrashedDriverCleanupTest}), and what crashed drivers of earlier releases left when
 * the cleaner runs.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CleanupTest {
    private CreelTestCluster creel;
    private CreelClient client;

    @BeforeEach
    void start() {
        creel = CreelTestCluster.start(128L << 20, 256L << 20);
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

    @Test
    void unregisteringAShuffleRemovesItsDirectoryAndStoppingTheApplicationRemovesEverything() {
        String appDir;
        try (JavaSparkContext sc = new JavaSparkContext(creel.sparkConf("local[2]", "cleanup"))) {
            JavaPairRDD<Integer, Long> a = sc.parallelize(IntStream.range(0, 5000).boxed().toList(), 3)
                    .mapToPair(i -> new Tuple2<>(i % 17, 1L)).reduceByKey(Long::sum, 2);
            JavaPairRDD<Integer, Long> b = a.mapToPair(t -> new Tuple2<>(t._1() % 3, t._2())).reduceByKey(Long::sum, 2);
            assertEquals(5000L, b.values().reduce(Long::sum));
            String dirA = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(a));
            String dirB = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(b));
            assertEquals(3, CreelShuffleInspector.mapFiles(client, dirA).size());
            assertEquals(2, CreelShuffleInspector.mapFiles(client, dirB).size());

            // What Spark's ContextCleaner does when the shuffle's RDD is garbage collected.
            sc.sc().cleaner().get().doCleanupShuffle(CreelShuffleInspector.shuffleOf(a).shuffleId(), true);
            assertFalse(CreelShuffleInspector.exists(client, dirA), dirA + " must be gone");
            assertTrue(CreelShuffleInspector.exists(client, dirB), "the other shuffle stays");

            appDir = dirA.substring(0, dirA.lastIndexOf('/'));
            assertEquals(List.of(appDir.substring(appDir.lastIndexOf('/') + 1)),
                    CreelShuffleInspector.mapFiles(client, SparkCreelConf.ROOT_DEFAULT),
                    "the root holds the application's directory and nothing else of it (no heartbeat)");
            io.creel.common.protocol.NodeExpiry expiry = client.lookup(appDir).join().info().expiry();
            assertTrue(expiry != null && expiry.session(),
                    "the application's directory is bound to the driver's session (a crash removes it): " + expiry);
        }
        assertFalse(CreelShuffleInspector.exists(client, appDir), "the application's data goes when it stops");
        assertEquals(List.of(), CreelShuffleInspector.mapFiles(client, SparkCreelConf.ROOT_DEFAULT),
                "nothing of it is left under the root");
    }

    @Test
    void theCleanerRemovesOnlyApplicationsWithoutARecentSignOfLife() throws Exception {
        String root = SparkCreelConf.ROOT_DEFAULT;
        Duration t = client.requestTimeout();
        Futures.await(client.create(root, NodeType.DIRECTORY), t, "mkdir");
        Futures.await(client.create(ShufflePaths.liveTable(root), NodeType.TABLE), t, "table");
        long now = System.currentTimeMillis();
        long hourAgo = now - 3_600_000;
        for (String app : List.of("app-crashed", "app-running", "app-nobeat")) {
            String dir = ShufflePaths.appDir(root, app);
            Futures.await(client.create(dir, NodeType.DIRECTORY), t, "mkdir");
            Futures.await(client.create(dir + "/shuffle-0", NodeType.DIRECTORY), t, "mkdir");
            try (var out = Futures.await(client.create(dir + "/shuffle-0/map-0-1", NodeType.FILE), t, "create")
                    .outputStream()) {
                out.write(new byte[1000]);
            }
        }
        // An application of this release: its directory is bound to its driver's session (this
        // client's, alive throughout), and it writes no heartbeat.
        Futures.await(client.create(ShufflePaths.appDir(root, "app-expiring"), NodeType.DIRECTORY,
                CreateOptions.defaults().withExpiry(Expiry.session())), t, "mkdir");
        StaleShuffleCleanerAccess.beat(client, root, "app-crashed", hourAgo);
        StaleShuffleCleanerAccess.beat(client, root, "app-running", now);
        StaleShuffleCleanerAccess.beat(client, root, "app-gone-dir", hourAgo); // heartbeat left without data

        // Dry run: reports, removes nothing.
        ByteArrayOutputStream dry = new ByteArrayOutputStream();
        assertEquals(0, StaleShuffleCleanerAccess.main(new String[] {"--namenode", creel.address(), "--dry-run"},
                new PrintStream(dry, true, StandardCharsets.UTF_8), System.err));
        String report = dry.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("app-crashed") && report.contains("stale"), report);
        assertTrue(CreelShuffleInspector.exists(client, root + "/app-crashed"));

        Map<String, StaleShuffleCleaner.Finding> found = new StaleShuffleCleaner(client, root, System::currentTimeMillis)
                .run(Duration.ofMinutes(10), true).stream()
                .collect(Collectors.toMap(StaleShuffleCleaner.Finding::app, Function.identity()));
        assertTrue(found.get("app-crashed").removed());
        assertFalse(found.get("app-running").stale());
        assertFalse(found.get("app-nobeat").stale(), "no heartbeat but just written: not old enough");
        assertTrue(found.get("app-expiring").expires() && !found.get("app-expiring").stale());
        assertTrue(found.get("app-gone-dir").removed());
        assertFalse(CreelShuffleInspector.exists(client, root + "/app-crashed"));
        assertFalse(CreelShuffleInspector.exists(client, ShufflePaths.liveTable(root) + "/app-crashed"));
        assertFalse(CreelShuffleInspector.exists(client, ShufflePaths.liveTable(root) + "/app-gone-dir"));
        assertTrue(CreelShuffleInspector.exists(client, root + "/app-running/shuffle-0/map-0-1"));

        // Twenty minutes later nothing has beaten: the application without a heartbeat goes too. The
        // expiring directory stays however old it looks: it goes when its owner's session ends.
        List<StaleShuffleCleaner.Finding> later = new StaleShuffleCleaner(client, root,
                () -> System.currentTimeMillis() + 1_200_000).run(Duration.ofMinutes(10), true);
        assertTrue(later.stream().allMatch(f -> f.removed() != f.expires()), later.toString());
        assertEquals(List.of("_live", "app-expiring"), CreelShuffleInspector.mapFiles(client, root));
    }

    @Test
    void theCleanerCommandRejectsBadArgumentsWithUsageExitCode() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(2, StaleShuffleCleanerAccess.main(new String[] {"--older-than"}, System.out, e));
        assertEquals(2, StaleShuffleCleanerAccess.main(new String[] {"--older-than", "soon"}, System.out, e));
        assertEquals(2, StaleShuffleCleanerAccess.main(new String[] {"--bogus"}, System.out, e));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown argument --bogus"), err.toString());
        // An unreachable namenode is a Creel error (exit 1) with a message, not a hang.
        assertEquals(1, StaleShuffleCleanerAccess.main(new String[] {"--namenode", "creel://127.0.0.1:1",
                "--conf", "creel.client.connect.timeout=1s"}, System.out, e));
    }
}
