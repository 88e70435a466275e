package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.spark.common.SparkCreelConf;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** What the shuffle tells Spark about its storage, from the {@code spark.creel.*} keys. */
class CreelShuffleDataIOTest {
    @Test
    void shuffleStorageIsReliableToSparkOnlyWhenMapOutputsAreReplicated() {
        assertEquals(false, new CreelShuffleDataIO(new SparkConf(false)).driver().supportsReliableStorage(),
                "one copy (the default): a lost machine loses its map outputs");
        assertEquals(true, new CreelShuffleDataIO(new SparkConf(false).set(SparkCreelConf.REPLICATION, "2"))
                .driver().supportsReliableStorage());
        assertEquals(true, new CreelShuffleDataIO(new SparkConf(false)
                .set("spark.creel.conf.creel.client.replication", "3")).driver().supportsReliableStorage(),
                "the client's factor counts when the shuffle does not set one");
        assertEquals(false, new CreelShuffleDataIO(new SparkConf(false).set(SparkCreelConf.REPLICATION, "1")
                .set("spark.creel.conf.creel.client.replication", "3")).driver().supportsReliableStorage(),
                "the shuffle's own factor wins");
        assertEquals(2, SparkCreelConf.from(new SparkConf(false).set(SparkCreelConf.REPLICATION, "2")).replication());
    }
}
