package io.creel.spark.broadcast;

import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
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
 * (the one its shuffle uses too: {@link SharedClients}) and gives it back when the executor stops.
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
            private SharedClient held;

            @Override
            public void init(PluginContext context, Map<String, String> extraConf) {
                held = SharedClients.acquire(BroadcastSettings.from(context.conf()).client().creel());
            }

            @Override
            public void shutdown() {
                if (held != null) {
                    held.close();
                    held = null;
                }
            }
        };
    }
}
