package io.creel.ops.metrics;

import io.creel.common.namespace.NodeType;
import io.creel.namenode.NamenodeServer;
import io.creel.namenode.persistence.NamenodePersistence;
import io.creel.ops.cluster.ClusterView;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Namenodes' views of the cluster and their namespaces, read when Prometheus scrapes (nothing is
 * counted on the request path): nodes per type, servers per state, capacity, used, free and
 * retiring bytes per server and per storage class, blocks per class and state, and, with
 * persistence, log fsyncs and checkpoints.
 *
 * <p>Every series carries a {@code namenode} label (its address in {@code creel.namenode.address}).
 * Each namenode of a partitioned cluster sees every storage server, but only the blocks of its own
 * partition: capacity and server states are the same from every namenode (aggregate them with
 * {@code max by (server)} or {@code max by (class)}), used and pending blocks are disjoint (aggregate
 * with {@code sum}). The label keeps the two apart, lets one process (bin/creel local) report
 * several namenodes, and lets a dashboard say which namenode disagrees.
 */
public final class NamenodeMetrics {
    /** One namenode and the address it is known by. */
    public record Reported(String address, NamenodeServer namenode) {
    }

    private NamenodeMetrics() {
    }

    /** Registers the metrics of {@code namenodes} (one per process, or every one of a local cluster). */
    public static void register(PrometheusRegistry registry, List<Reported> namenodes) {
        List<Reported> all = List.copyOf(namenodes);
        GaugeWithCallback.builder().name("creel_namenode_nodes")
                .help("Nodes in the namenode's partition of the namespace per node type, its root directory included")
                .labelNames("namenode", "type")
                .callback(cb -> all.forEach(r -> {
                    long[] counts = r.namenode().nodeCountsByType();
                    for (NodeType t : NodeType.values()) {
                        cb.call(counts[t.ordinal()], r.address(), t.displayName());
                    }
                })).register(registry);
        GaugeWithCallback.builder().name("creel_namenode_servers")
                .help("Storage servers registered with the namenode, per state (live, draining, dead, decommissioned)")
                .labelNames("namenode", "state")
                .callback(cb -> all.forEach(r -> view(r).serversByState().forEach((s, n) -> cb.call(n, r.address(), s))))
                .register(registry);
        GaugeWithCallback.builder().name("creel_server_state")
                .help("1 for every storage server the namenode knows, with its tier, class and state")
                .labelNames("namenode", "server", "tier", "class", "state")
                .callback(cb -> all.forEach(r -> view(r).servers().forEach(s -> cb.call(1, r.address(), s.address(),
                        s.tier(), s.storageClass(), s.state())))).register(registry);
        perServer(registry, all, "creel_server_capacity_bytes", "Bytes a storage server exports",
                ClusterView.Server::capacityBytes);
        perServer(registry, all, "creel_server_used_bytes",
                "Bytes of a storage server holding data of the namenode's partition", ClusterView.Server::usedBytes);
        perServer(registry, all, "creel_server_free_bytes",
                "Bytes of a storage server the namenode could hand out (no other partition's use subtracted)",
                ClusterView.Server::freeBytes);
        perServer(registry, all, "creel_server_pending_bytes",
                "Bytes of a storage server the namenode freed that wait out the reuse delay",
                ClusterView.Server::pendingBytes);
        perClass(registry, all, "creel_class_capacity_bytes",
                "Bytes a storage class offers over its servers that are not dead or decommissioned",
                ClusterView.ClassTotal::capacityBytes);
        perClass(registry, all, "creel_class_used_bytes",
                "Bytes of a storage class holding data of the namenode's partition", ClusterView.ClassTotal::usedBytes);
        perClass(registry, all, "creel_class_free_bytes",
                "Bytes of a storage class the namenode could hand out (no other partition's use subtracted)",
                ClusterView.ClassTotal::freeBytes);
        perClass(registry, all, "creel_class_pending_bytes",
                "Bytes of a storage class the namenode freed that wait out the reuse delay",
                ClusterView.ClassTotal::pendingBytes);
        GaugeWithCallback.builder().name("creel_class_blocks")
                .help("Blocks of a storage class as the namenode counts them: used and pending (its partition's), free")
                .labelNames("namenode", "class", "state")
                .callback(cb -> all.forEach(r -> view(r).classTotals().forEach(c -> {
                    cb.call(c.usedBlocks(), r.address(), c.storageClass(), "used");
                    cb.call(c.pendingBlocks(), r.address(), c.storageClass(), "pending");
                    cb.call(c.freeBlocks(), r.address(), c.storageClass(), "free");
                }))).register(registry);
        counter(registry, all, "creel_namenode_retries_answered",
                "Retried requests the namenode answered with their first answer instead of applying them again",
                r -> Optional.of((double) r.namenode().retriesAnswered()));
        gauge(registry, all, "creel_namenode_retry_cache_entries",
                "Answers to clients' changes the namenode keeps for retries (creel.namenode.retry.cache.size)",
                r -> Optional.of((double) r.namenode().retryCacheSize()));
        gauge(registry, all, "creel_blocks_under_replicated",
                "Blocks of the namenode's partition with fewer copies on live, non-draining servers than their factor "
                        + "(from the replica repair's last walk)",
                r -> Optional.of((double) r.namenode().replication().underReplicated()));
        gauge(registry, all, "creel_blocks_without_live_copy",
                "Blocks of the namenode's partition with no copy on a live server (lost while their servers stay dead)",
                r -> Optional.of((double) r.namenode().replication().lost()));
        counter(registry, all, "creel_replica_repairs",
                "Blocks the namenode gave new copies since it started (a server died or is draining)",
                r -> Optional.of((double) r.namenode().replication().repairedBlocks()));
        counter(registry, all, "creel_replica_repair_bytes",
                "Bytes the namenode copied to restore replication factors since it started",
                r -> Optional.of((double) r.namenode().replication().copiedBytes()));
        gauge(registry, all, "creel_namenode_expiring_nodes",
                "Nodes that expire with their owner's session or a time to live (their subtrees not counted)",
                r -> Optional.of((double) r.namenode().expiringNodes()));
        counter(registry, all, "creel_namenode_expired_nodes",
                "Expiring nodes the namenode removed, with their subtrees, because their owner stopped heartbeating",
                r -> Optional.of((double) r.namenode().expiredNodes()));
        if (all.stream().anyMatch(r -> r.namenode().persistence().isPresent())) {
            persistence(registry, all);
        }
    }

    private static void persistence(PrometheusRegistry registry, List<Reported> all) {
        counter(registry, all, "creel_namenode_log_fsyncs",
                "fsyncs of the namenode's operation log (one covers every record appended before it)",
                r -> persisted(r, p -> p.syncCount()));
        counter(registry, all, "creel_namenode_log_fsync_seconds", "Seconds spent in fsyncs of the operation log",
                r -> persisted(r, NamenodePersistence::syncSeconds));
        counter(registry, all, "creel_namenode_checkpoints", "Checkpoints the namenode wrote since it started",
                r -> persisted(r, p -> p.checkpointCount()));
        counter(registry, all, "creel_namenode_checkpoint_seconds", "Seconds spent writing checkpoints",
                r -> persisted(r, NamenodePersistence::checkpointSeconds));
        gauge(registry, all, "creel_namenode_last_checkpoint_seconds",
                "Seconds the last checkpoint took (0 before the first)",
                r -> persisted(r, NamenodePersistence::lastCheckpointSeconds));
    }

    private static Optional<Double> persisted(Reported r, ToDoubleFunction<NamenodePersistence> figure) {
        return r.namenode().persistence().map(figure::applyAsDouble);
    }

    private interface Figure {
        /** The figure of one namenode; empty when it has none (no persistence). */
        Optional<Double> of(Reported r);
    }

    private static void counter(PrometheusRegistry registry, List<Reported> all, String name, String help, Figure f) {
        CounterWithCallback.builder().name(name).help(help).labelNames("namenode")
                .callback(cb -> all.forEach(r -> f.of(r).ifPresent(v -> cb.call(v, r.address()))))
                .register(registry);
    }

    private static void gauge(PrometheusRegistry registry, List<Reported> all, String name, String help, Figure f) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("namenode")
                .callback(cb -> all.forEach(r -> f.of(r).ifPresent(v -> cb.call(v, r.address()))))
                .register(registry);
    }

    private static ClusterView view(Reported r) {
        return ClusterView.of(r.namenode().status());
    }

    private static void perServer(PrometheusRegistry registry, List<Reported> all, String name, String help,
                                  ToLongFunction<ClusterView.Server> figure) {
        GaugeWithCallback.builder().name(name).help(help + ", as the namenode sees it")
                .labelNames("namenode", "server", "tier", "class")
                .callback(cb -> all.forEach(r -> view(r).servers().forEach(s -> cb.call(figure.applyAsLong(s),
                        r.address(), s.address(), s.tier(), s.storageClass())))).register(registry);
    }

    private static void perClass(PrometheusRegistry registry, List<Reported> all, String name, String help,
                                 ToLongFunction<ClusterView.ClassTotal> figure) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("namenode", "class")
                .callback(cb -> all.forEach(r -> view(r).classTotals().forEach(c -> cb.call(figure.applyAsLong(c),
                        r.address(), c.storageClass())))).register(registry);
    }
}
