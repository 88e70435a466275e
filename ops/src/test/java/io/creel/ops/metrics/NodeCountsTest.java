package io.creel.ops.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.common.namespace.NodeType;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The namenode's nodes per type, which creel_namenode_nodes and the status page show. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NodeCountsTest {
    @TempDir
    Path logDir;

    @Test
    void countsFollowCreatesReplacementsAndRemovalsAndSurviveARestart() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(8 << 20).disk(0).servers(1, 0)
                .set(NamenodeKeys.LOG_DIR, logDir.toString()).start();
             CreelClient c = CreelClient.connect(cluster.clientConf())) {
            c.create("/d", NodeType.DIRECTORY).join();
            c.create("/d/f", NodeType.FILE).join().writer().close();
            c.create("/d/g", NodeType.FILE).join().writer().close();
            c.create("/t", NodeType.TABLE).join();
            c.putValue("/t", "k", ByteBuffer.wrap(new byte[] {1})).join();
            c.putValue("/t", "k", ByteBuffer.wrap(new byte[] {2})).join(); // replaces: still one KeyValue
            c.putValue("/t", "j", ByteBuffer.wrap(new byte[] {3})).join();
            c.create("/b", NodeType.BAG).join();
            c.delete("/d/g", false).join();

            long[] expected = new long[NodeType.values().length];
            expected[NodeType.DIRECTORY.ordinal()] = 2; // the root and /d
            expected[NodeType.FILE.ordinal()] = 1;
            expected[NodeType.TABLE.ordinal()] = 1;
            expected[NodeType.KEYVALUE.ordinal()] = 2;
            expected[NodeType.BAG.ordinal()] = 1;
            long[] counts = cluster.namenode().nodeCountsByType();
            assertArrayEquals(expected, counts, Arrays.toString(counts));
            assertEquals(Arrays.stream(expected).sum(), cluster.namenode().nodeCount());

            c.delete("/d", true).join();
            expected[NodeType.DIRECTORY.ordinal()] = 1;
            expected[NodeType.FILE.ordinal()] = 0;
            assertArrayEquals(expected, cluster.namenode().nodeCountsByType());

            long[] restored = cluster.restartNamenode().nodeCountsByType();
            assertArrayEquals(expected, restored, "after replaying the log: " + Arrays.toString(restored));

            // The restarted namenode learns its storage server again at the server's next heartbeat.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cluster.namenode().status().servers().stream().noneMatch(v -> v.state().equals("live"))) {
                assertTrue(System.nanoTime() < deadline, "the storage server did not register again within 30 s");
                Thread.sleep(20);
            }
            try (CreelClient again = CreelClient.connect(cluster.clientConf())) {
                again.create("/x", NodeType.DIRECTORY).join();
            }
            expected[NodeType.DIRECTORY.ordinal()]++;
            assertTrue(cluster.namenode().persistence().orElseThrow().checkpoint(), "a checkpoint with /x was written");
            long[] fromCheckpoint = cluster.restartNamenode().nodeCountsByType();
            assertArrayEquals(expected, fromCheckpoint, "after reading the checkpoint: " + Arrays.toString(fromCheckpoint));
        }
    }
}
