package io.creel.spark.shuffle;

import java.util.Map;
import org.apache.spark.shuffle.api.ShuffleDriverComponents;
import org.apache.spark.shuffle.sort.io.LocalDiskShuffleDriverComponents;

/**
 * Declares Creel's shuffle storage reliable: map outputs live in Creel, not in the executor that
 * wrote them, so Spark neither reruns maps when an executor goes away nor needs the external
 * shuffle service for dynamic allocation.
 *
 * <p>Removing a shuffle is forwarded to Spark's block-manager master, which asks every executor's
 * and the driver's shuffle manager to unregister it; the driver's {@link CreelShuffleManager}
 * then removes the shuffle's Creel directory, and shuffles that fell back to the sort shuffle
 * lose their local files as in Spark. Application data is removed by the driver's shuffle
 * manager when it stops.
 */
public final class CreelShuffleDriverComponents implements ShuffleDriverComponents {
    private final LocalDiskShuffleDriverComponents blockManagers = new LocalDiskShuffleDriverComponents();

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
        return true;
    }
}
