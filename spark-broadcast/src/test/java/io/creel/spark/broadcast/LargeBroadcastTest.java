package io.creel.spark.broadcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.LocalClusterMode;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A 1 GiB broadcast read back equal by every task on two executor JVMs; heavy, so in the matrix group only. */
@Tag("matrix")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LargeBroadcastTest {
    @Test
    void aOneGibValueReadsBackEqualOnEveryExecutorOncePerExecutor() throws InterruptedException {
        try (CreelTestCluster creel = CreelTestCluster.start(1400L << 20, 256L << 20);
             CreelClient client = CreelClient.connect(creel.cluster().clientConf())) {
            String path;
            try (JavaSparkContext sc = new JavaSparkContext(LocalClusterMode.prepare(
                    BroadcastFixture.conf(creel, LocalClusterMode.master(2, 4096), "broadcast-1gib")
                            .set("spark.executor.memory", "3g")))) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (sc.sc().statusTracker().getExecutorInfos().length < 3) {
                    assertTrue(System.nanoTime() < deadline, "executors did not register within 60 s");
                    Thread.sleep(100);
                }
                byte[] value = BroadcastFixture.bytes(1 << 30, 42);
                String expected = BroadcastFixture.digest(value);
                Broadcast<byte[]> b = CreelBroadcast.broadcast(sc, value);
                value = null; // the driver's Broadcast keeps it; the test holds no second reference
                path = ((StoredBroadcast<byte[]>) b).path();
                assertTrue(((StoredBroadcast<byte[]>) b).storedBytes() > 1L << 30);

                List<String> seen = sc.parallelize(IntStream.range(0, 6).boxed().toList(), 6)
                        .map(i -> SparkEnv.get().executorId() + " " + BroadcastFixture.digest(b.value()) + " reads="
                                + BroadcastReader.readsFromCreel(((StoredBroadcast<byte[]>) b).path()))
                        .collect();
                Set<String> executors = new TreeSet<>();
                for (String s : seen) {
                    String[] p = s.split(" ", 2);
                    executors.add(p[0]);
                    assertEquals(expected + " reads=1", p[1], "task on executor " + p[0]);
                }
                assertEquals(2, executors.size(), "tasks ran on every executor: " + seen);
                b.destroy();
                assertTrue(!BroadcastFixture.exists(client, path), "destroy removed " + path);
            }
            assertEquals(List.of(), BroadcastFixture.leftUnderRoot(client));
        }
    }
}
