package io.creel.ops.metrics;

import io.creel.common.rpc.RpcProbes;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Creel's metrics for an application that embeds the client (a Spark executor, a service) and
 * exposes its own Prometheus registry: the bytes its client moved per transport.
 *
 * <pre>{@code
 * CreelMetrics.client(PrometheusRegistry.defaultRegistry);
 * }</pre>
 *
 * The daemons register theirs through {@link io.creel.ops.DaemonHttp}.
 */
public final class CreelMetrics {
    private CreelMetrics() {
    }

    /** Registers the client-side metrics ({@code creel_transfer_bytes_total}, {@code creel_transfers_total}). */
    public static void client(PrometheusRegistry registry) {
        TransferMetrics.register(registry);
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
