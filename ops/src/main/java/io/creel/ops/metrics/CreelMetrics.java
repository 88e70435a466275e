package io.creel.ops.metrics;

import io.creel.common.rpc.RpcProbes;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Creel's metrics for an application that embeds the client (a Spark executor, a service) and
 * exposes its own Prometheus registry: the bytes its process moved per transport, and its client's
 * block-location cache.
 *
 * <pre>{@code
 * CreelClient creel = CreelClient.connect(conf);
 * CreelMetrics.client(PrometheusRegistry.defaultRegistry, creel);
 * }</pre>
 *
 * Once per registry. The daemons register theirs through {@link io.creel.ops.DaemonHttp}.
 */
public final class CreelMetrics {
    private CreelMetrics() {
    }

    /**
     * Registers the client-side metrics: {@code creel_transfer_bytes_total} and
     * {@code creel_transfers_total} (the process's), and {@code creel_client_block_cache_*} of
     * {@code client}.
     */
    public static void client(PrometheusRegistry registry, io.creel.client.CreelClient client) {
        TransferMetrics.register(registry);
        ClientMetrics.register(registry, client);
    }

    /**
     * Registers the RPC server metrics and makes them the process's (see {@link RpcProbes}); returns
     * what was installed, for {@link RpcProbes#uninstall}.
     */
    public static RpcMetrics rpcServers(PrometheusRegistry registry) {
        RpcMetrics m = new RpcMetrics(registry);
        RpcProbes.install(m);
        return m;
    }
}
