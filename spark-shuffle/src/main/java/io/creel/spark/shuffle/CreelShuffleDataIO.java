package io.creel.spark.shuffle;

import io.creel.spark.common.SparkCreelConf;
import org.apache.spark.SparkConf;
import org.apache.spark.shuffle.api.ShuffleDataIO;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO;

/**
 * The driver side of Spark's shuffle plugin API ({@code spark.shuffle.sort.io.plugin.class}) for
 * Creel: it tells Spark that shuffle data outlives executors ({@link CreelShuffleDriverComponents}).
 * {@link CreelShuffleManager} sets this class on the driver when the plugin key is unset, so a user
 * only sets {@code spark.shuffle.manager}.
 *
 * <p>Creel's data path is the shuffle manager, which hands its own writer components to Spark's
 * writers; {@link #executor()} therefore gives Spark's local-disk components, the right ones for
 * any plain sort-shuffle manager that reads this key.
 */
public final class CreelShuffleDataIO implements ShuffleDataIO {
    private final SparkConf conf;

    public CreelShuffleDataIO(SparkConf conf) {
        this.conf = conf;
    }

    @Override
    public ShuffleExecutorComponents executor() {
        return new LocalDiskShuffleDataIO(conf).executor();
    }

    @Override
    public ShuffleDriverComponents driver() {
        return new CreelShuffleDriverComponents(SparkCreelConf.from(conf).reliable());
    }
}
