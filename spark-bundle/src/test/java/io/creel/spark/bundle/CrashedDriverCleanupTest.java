package io.creel.spark.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.NodeExpiry;
import io.creel.namenode.NamenodeKeys;
import io.creel.spark.broadcast.BroadcastSettings;
import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.CreelBroadcastPlugin;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.SparkCreelConf;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * A crashed application leaves nothing behind, without an operator: a Spark driver killed with
 * SIGKILL in its own JVM has its shuffle data, its broadcasts and every other node of its
 * application removed by the namenode once its Creel session times out, while an application that
 * still runs keeps all of its data.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CrashedDriverCleanupTest {
    /** The namenode's {@code creel.namenode.session.timeout} here (30 s by default). */
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    /** The drivers' {@code creel.client.session.heartbeat}, well below the timeout (3 s by default). */
    private static final String CLIENT_HEARTBEAT = "300ms";
    /** From the kill to the last node gone: the timeout, the last heartbeat's age and the namenode's sweep, with slack. */
    private static final Duration REMOVAL_BOUND = SESSION_TIMEOUT.plusSeconds(5);
    private static final Duration READY_WITHIN = Duration.ofSeconds(90);
    private static final String[] ROOTS = {SparkCreelConf.ROOT_DEFAULT, BroadcastSettings.ROOT_DEFAULT};

    @Test
    void aKilledDriversApplicationDataExpiresWithItsSessionWhileARunningApplicationKeepsItsOwn(@TempDir Path tmp)
            throws Exception {
        try (CreelTestCluster creel = CreelTestCluster.start(128L << 20, 128L << 20, 1, 1,
                Map.of(NamenodeKeys.SESSION_TIMEOUT.name(), SESSION_TIMEOUT.toMillis() + "ms"));
             CreelClient client = CreelClient.connect(creel.cluster().clientConf());
             JavaSparkContext running = new JavaSparkContext(CreelTestCluster.sparkConf(creel.address(), "local[2]",
                     "running").set("spark.plugins", CreelBroadcastPlugin.class.getName())
                     .set(SparkCreelConf.PASS_THROUGH_PREFIX + "creel.client.session.heartbeat", CLIENT_HEARTBEAT))) {
            // An application that keeps running throughout, in this JVM.
            Broadcast<int[]> runningWeights = CreelBroadcast.broadcast(running, IntStream.range(0, 500).toArray());
            JavaPairRDD<Integer, Long> runningSums = running.parallelize(IntStream.range(0, 5000).boxed().toList(), 3)
                    .mapToPair(i -> new Tuple2<>(i % 7, (long) runningWeights.value()[i % 500]))
                    .reduceByKey(Long::sum, 2);
            long runningTotal = runningSums.values().reduce(Long::sum);
            String runningApp = running.sc().applicationId();
            List<String> runningNodes = applicationNodes(client, runningApp);
            assertHasShuffleAndBroadcast(runningApp, runningNodes);

            Path out = tmp.resolve("driver.out");
            Path err = tmp.resolve("driver.err");
            Process driver = startDriver(creel.address(), out, err);
            try {
                String app = awaitReady(driver, out, err);
                List<String> nodes = applicationNodes(client, app);
                assertHasShuffleAndBroadcast(app, nodes);
                for (String root : ROOTS) {
                    NodeExpiry expiry = client.lookup(root + "/" + app).join().info().expiry();
                    assertTrue(expiry != null && expiry.session(), root + "/" + app
                            + " is bound to the driver's session: " + expiry);
                }
                String mapOutput = nodes.stream().filter(p -> p.contains("/map-")).findFirst().orElseThrow();
                assertNull(client.lookup(mapOutput).join().info().expiry(),
                        "a map output has no owner of its own (an executor's end must not take it): it goes with "
                                + "the application's directory");

                driver.destroyForcibly(); // SIGKILL: no shutdown hook, no SparkContext.stop, no last word to Creel
                assertTrue(driver.waitFor(10, TimeUnit.SECONDS), "the killed driver's JVM did not end");
                long killed = System.nanoTime();

                List<String> left = nodes;
                while (!left.isEmpty()) {
                    long waited = System.nanoTime() - killed;
                    if (waited > REMOVAL_BOUND.toNanos()) {
                        fail("the killed driver's data is still in Creel " + waited / 1_000_000 + " ms after the kill "
                                + "(session timeout " + SESSION_TIMEOUT.toMillis() + " ms): " + left);
                    }
                    Thread.sleep(100);
                    left = applicationNodes(client, app);
                }
                long removedAfterMillis = (System.nanoTime() - killed) / 1_000_000;
                System.out.printf("the killed driver's %d nodes were gone %d ms after the kill (session timeout %d ms)%n",
                        nodes.size(), removedAfterMillis, SESSION_TIMEOUT.toMillis());

                // The running application outlives the killed one's expiry by another whole timeout, untouched.
                Thread.sleep(SESSION_TIMEOUT.toMillis());
                assertEquals(runningNodes, applicationNodes(client, runningApp),
                        "the running application's data is untouched");
                assertEquals(runningTotal, runningSums.values().reduce(Long::sum),
                        "and its shuffle output still reads back");
            } finally {
                driver.destroyForcibly();
            }
        }
    }

    /** A driver JVM with this JVM's class path and module openings, running {@link DriverToKill}. */
    private static Process startDriver(String namenode, Path out, Path err) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens") || a.startsWith("-Dio.netty.") || a.startsWith("-Djdk.reflect."))
                .forEach(cmd::add);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), DriverToKill.class.getName(), namenode,
                String.valueOf(TimeUnit.MINUTES.toSeconds(5)),
                SparkCreelConf.PASS_THROUGH_PREFIX + "creel.client.session.heartbeat=" + CLIENT_HEARTBEAT));
        return new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }

    /** The killed driver's application id, once it says its data is in Creel. */
    private static String awaitReady(Process driver, Path out, Path err) throws Exception {
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        while (true) {
            Optional<String> ready = Files.readAllLines(out).stream().filter(l -> l.startsWith(DriverToKill.READY))
                    .findFirst();
            if (ready.isPresent()) {
                return ready.get().substring(DriverToKill.READY.length()).split(" ")[0];
            }
            if (!driver.isAlive()) {
                fail("the driver ended (exit " + driver.exitValue() + ") before it was ready:\n" + tail(err));
            }
            if (System.nanoTime() > deadline) {
                fail("the driver was not ready within " + READY_WITHIN.toSeconds() + " s:\n" + tail(err));
            }
            Thread.sleep(100);
        }
    }

    private static String tail(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /**
     * Every node of application {@code app} under the shuffle and the broadcast roots: its
     * directories with all below them, and any entry named after it (as a heartbeat would be).
     */
    private static List<String> applicationNodes(CreelClient client, String app) {
        List<String> found = new ArrayList<>();
        for (String root : ROOTS) {
            walk(client, root, app, false, found);
        }
        return found;
    }

    private static void walk(CreelClient client, String dir, String app, boolean inApp, List<String> found) {
        List<DirectoryEntry> entries;
        try {
            entries = Futures.await(client.list(dir), client.requestTimeout(), "listing " + dir);
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return; // not made yet, or removed while we looked
            }
            throw e;
        }
        for (DirectoryEntry e : entries.stream().sorted(java.util.Comparator.comparing(DirectoryEntry::path)).toList()) {
            boolean ofApp = inApp || e.name().equals(app);
            if (ofApp) {
                found.add(e.path());
            }
            if (e.info().type().isContainer()) {
                walk(client, e.path(), app, ofApp, found);
            }
        }
    }

    private static void assertHasShuffleAndBroadcast(String app, List<String> nodes) {
        String shuffle = SparkCreelConf.ROOT_DEFAULT + "/" + app + "/shuffle-";
        String broadcast = BroadcastSettings.ROOT_DEFAULT + "/" + app + "/broadcast-";
        assertTrue(nodes.stream().anyMatch(p -> p.startsWith(shuffle) && p.contains("/map-")),
                app + " has map outputs in Creel: " + nodes);
        assertTrue(nodes.stream().anyMatch(p -> p.startsWith(broadcast)), app + " has a broadcast in Creel: " + nodes);
    }
}
