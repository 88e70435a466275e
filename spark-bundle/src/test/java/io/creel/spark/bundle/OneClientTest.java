package io.creel.spark.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
import io.creel.spark.broadcast.BroadcastSettings;
import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.CreelBroadcastPlugin;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.shuffle.CreelShuffleManager;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/** A Spark process talks to Creel through one client: its shuffle and its broadcasts share it. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OneClientTest {
    private CreelTestCluster creel;

    @BeforeEach
    void start() {
        creel = CreelTestCluster.start(128L << 20, 128L << 20);
    }

    @AfterEach
    void stop() {
        if (creel != null) {
            creel.close();
        }
    }

    @Test
    void aJobThatShufflesAndReadsABroadcastRunsOneClientAndTheApplicationsEndClosesIt() {
        int before = SharedClients.open();
        try (JavaSparkContext sc = new JavaSparkContext(creel.sparkConf("local[2]", "one-client")
                .set("spark.plugins", CreelBroadcastPlugin.class.getName()))) {
            Broadcast<int[]> b = CreelBroadcast.broadcast(sc, IntStream.range(0, 8).toArray());
            long keys = sc.parallelize(IntStream.range(0, 100).boxed().toList(), 4)
                    .mapToPair(i -> new Tuple2<>(i % 7, b.value()[i % 8]))
                    .reduceByKey(Integer::sum)
                    .count();
            assertEquals(7, keys);
            CreelShuffleManager shuffle = (CreelShuffleManager) SparkEnv.get().shuffleManager();
            assertEquals(before + 1, SharedClients.open(), "one client for the shuffle and the broadcasts");
            try (SharedClient h = SharedClients.acquire(BroadcastSettings.from(sc.getConf()).client().creel())) {
                assertSame(shuffle.client(), h.client(), "the broadcasts' client is the shuffle's");
            }
        }
        assertEquals(before, SharedClients.open(), "the application's end gave the client back");
    }
}
