package io.creel.spark.shuffle;

import io.creel.spark.common.SparkCreelConf;
import java.util.Map;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDriverComponents;

/**
 * Tells Spark whether Creel's shuffle storage is reliable: it is when map outputs are replicated
 * ({@code spark.creel.shuffle.replication} of 2 or more), so they survive the loss of the machine
 * that wrote them; Spark then neither reruns maps when an executor goes away nor needs the external
 * shuffle service for dynamic allocation. With one copy (the default) a map output on the lost
 * machine's storage server is gone, and Spark must rerun its map: it is told the storage is not
 * reliable.
 *
 * <p>Removing a shuffle is forwarded to Spark's block-manager master, which asks every executor's
 * and the driver's shuffle manager to unregister it; the driver's {@link CreelShuffleManager}
 * then removes the shuffle's Creel directory, and shuffles that fell back to the sort shuffle
 * lose their local files as in Spark. Application data is removed by the driver's shuffle
 * manager when it stops.
 */
public final class CreelShuffleDriverComponents implements ShuffleDriverComponents {
    private final LocalDiskShuffleDriverComponents blockManagers = new LocalDiskShuffleDriverComponents();
    private final boolean reliable;

    /** @param reliable whether map outputs are replicated (see {@link SparkCreelConf#reliable}) */
    public CreelShuffleDriverComponents(boolean reliable) {
        this.reliable = reliable;
    }

    @Override
    public Map<String, String> initializeApplication() {
        return blockManagers.initializeApplication();
    }

    @Override
    public void cleanupApplication() {
        blockManagers.cleanupApplication();
    }

    @Override
    public void removeShuffle(int shuffleId, boolean blocking) {
        blockManagers.removeShuffle(shuffleId, blocking);
    }

    @Override
    public boolean supportsReliableStorage() {
        return reliable;
    }
}
