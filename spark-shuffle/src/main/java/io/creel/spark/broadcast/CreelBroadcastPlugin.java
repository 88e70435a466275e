package io.creel.spark.broadcast;

import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * {@code spark.plugins=io.creel.spark.broadcast.CreelBroadcastPlugin}: the driver component owns
 * the application's broadcasts ({@link DriverBroadcasts}) and removes them all when the
 * application ends; the executor component holds the executor's Creel client for broadcast reads
 * and closes it when the executor stops.
 */
public final class CreelBroadcastPlugin implements SparkPlugin {
    @Override
    public DriverPlugin driverPlugin() {
        return new DriverPlugin() {
            private DriverBroadcasts broadcasts;

            @Override
            public Map<String, String> init(SparkContext sc, PluginContext context) {
                broadcasts = DriverBroadcasts.start(sc);
                return Map.of();
            }

            @Override
            public void shutdown() {
                if (broadcasts != null) {
                    broadcasts.stop();
                }
            }
        };
    }

    @Override
    public ExecutorPlugin executorPlugin() {
        return new ExecutorPlugin() {
            private boolean holding;

            @Override
            public void init(PluginContext context, Map<String, String> extraConf) {
                SharedClient.acquire(BroadcastSettings.from(context.conf()).client().creel());
                holding = true;
            }

            @Override
            public void shutdown() {
                if (holding) {
                    holding = false;
                    SharedClient.release();
                }
            }
        };
    }
}
