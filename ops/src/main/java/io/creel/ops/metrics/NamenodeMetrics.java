package io.creel.ops.metrics;

import io.creel.common.namespace.NodeType;
import io.creel.namenode.NamenodeServer;
import io.creel.namenode.persistence.NamenodePersistence;
import io.creel.ops.cluster.ClusterView;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.ToLongFunction;

/**
 * A namenode's view of the cluster and its namespace, read when Prometheus scrapes (nothing is
 * counted on the request path): nodes per type, servers per state, capacity, used, free and
 * retiring bytes per server and per storage class, blocks per class and state, and, with
 * persistence, log fsyncs and checkpoints.
 */
public final class NamenodeMetrics {
    private NamenodeMetrics() {
    }

    public static void register(PrometheusRegistry registry, NamenodeServer nn) {
        GaugeWithCallback.builder().name("creel_namenode_nodes")
                .help("Nodes in the namespace per node type, the root directory included").labelNames("type")
                .callback(cb -> {
                    long[] counts = nn.nodeCountsByType();
                    for (NodeType t : NodeType.values()) {
                        cb.call(counts[t.ordinal()], t.displayName());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("creel_namenode_servers")
                .help("Storage servers registered with the namenode, per state (live, draining, dead, decommissioned)")
                .labelNames("state")
                .callback(cb -> view(nn).serversByState().forEach((s, n) -> cb.call(n, s))).register(registry);
        GaugeWithCallback.builder().name("creel_server_state")
                .help("1 for every storage server the namenode knows, with its tier, class and state")
                .labelNames("server", "tier", "class", "state")
                .callback(cb -> view(nn).servers().forEach(s -> cb.call(1, s.address(), s.tier(), s.storageClass(),
                        s.state()))).register(registry);
        perServer(registry, nn, "creel_server_capacity_bytes", "Bytes a storage server exports",
                ClusterView.Server::capacityBytes);
        perServer(registry, nn, "creel_server_used_bytes", "Bytes of a storage server holding data",
                ClusterView.Server::usedBytes);
        perServer(registry, nn, "creel_server_free_bytes", "Bytes of a storage server ready to hand out",
                ClusterView.Server::freeBytes);
        perServer(registry, nn, "creel_server_pending_bytes",
                "Bytes of a storage server freed but waiting out the reuse delay", ClusterView.Server::pendingBytes);
        perClass(registry, nn, "creel_class_capacity_bytes",
                "Bytes a storage class offers over its servers that are not dead or decommissioned",
                ClusterView.ClassTotal::capacityBytes);
        perClass(registry, nn, "creel_class_used_bytes", "Bytes of a storage class holding data",
                ClusterView.ClassTotal::usedBytes);
        perClass(registry, nn, "creel_class_free_bytes", "Bytes of a storage class ready to hand out",
                ClusterView.ClassTotal::freeBytes);
        perClass(registry, nn, "creel_class_pending_bytes",
                "Bytes of a storage class freed but waiting out the reuse delay", ClusterView.ClassTotal::pendingBytes);
        GaugeWithCallback.builder().name("creel_class_blocks")
                .help("Blocks of a storage class: used (holding data), pending (in the reuse delay), free")
                .labelNames("class", "state")
                .callback(cb -> view(nn).classTotals().forEach(c -> {
                    cb.call(c.usedBlocks(), c.storageClass(), "used");
                    cb.call(c.pendingBlocks(), c.storageClass(), "pending");
                    cb.call(c.freeBlocks(), c.storageClass(), "free");
                })).register(registry);
        CounterWithCallback.builder().name("creel_namenode_retries_answered")
                .help("Retried requests the namenode answered with their first answer instead of applying them again")
                .callback(cb -> cb.call(nn.retriesAnswered())).register(registry);
        GaugeWithCallback.builder().name("creel_namenode_retry_cache_entries")
                .help("Answers to clients' changes the namenode keeps for retries (creel.namenode.retry.cache.size)")
                .callback(cb -> cb.call(nn.retryCacheSize())).register(registry);
        nn.persistence().ifPresent(p -> persistence(registry, p));
    }

    private static void persistence(PrometheusRegistry registry, NamenodePersistence p) {
        CounterWithCallback.builder().name("creel_namenode_log_fsyncs")
                .help("fsyncs of the namenode's operation log (one covers every record appended before it)")
                .callback(cb -> cb.call(p.syncCount())).register(registry);
        CounterWithCallback.builder().name("creel_namenode_log_fsync_seconds")
                .help("Seconds spent in fsyncs of the operation log")
                .callback(cb -> cb.call(p.syncSeconds())).register(registry);
        CounterWithCallback.builder().name("creel_namenode_checkpoints")
                .help("Checkpoints the namenode wrote since it started")
                .callback(cb -> cb.call(p.checkpointCount())).register(registry);
        CounterWithCallback.builder().name("creel_namenode_checkpoint_seconds")
                .help("Seconds spent writing checkpoints")
                .callback(cb -> cb.call(p.checkpointSeconds())).register(registry);
        GaugeWithCallback.builder().name("creel_namenode_last_checkpoint_seconds")
                .help("Seconds the last checkpoint took (0 before the first)")
                .callback(cb -> cb.call(p.lastCheckpointSeconds())).register(registry);
    }

    private static ClusterView view(NamenodeServer nn) {
        return ClusterView.of(nn.status());
    }

    private static void perServer(PrometheusRegistry registry, NamenodeServer nn, String name, String help,
                                  ToLongFunction<ClusterView.Server> figure) {
        GaugeWithCallback.builder().name(name).help(help + ", as the namenode sees it")
                .labelNames("server", "tier", "class")
                .callback(cb -> view(nn).servers().forEach(s -> cb.call(figure.applyAsLong(s), s.address(), s.tier(),
                        s.storageClass()))).register(registry);
    }

    private static void perClass(PrometheusRegistry registry, NamenodeServer nn, String name, String help,
                                 ToLongFunction<ClusterView.ClassTotal> figure) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("class")
                .callback(cb -> view(nn).classTotals().forEach(c -> cb.call(figure.applyAsLong(c), c.storageClass())))
                .register(registry);
    }
}
