package io.creel.ops.metrics;

import io.creel.common.net.HostPort;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.runtime.RegionArbiter;
import io.creel.storage.runtime.StorageServerRuntime;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/**
 * Storage servers as they see themselves, read when Prometheus scrapes: capacity, regions granted
 * to namenodes and free, and registration with each namenode. Several servers may share a process
 * (bin/creel local); the {@code server} label tells them apart.
 */
public final class StorageServerMetrics {
    private StorageServerMetrics() {
    }

    /**
     * @param namenodes creel.namenode.address, in order (the servers register with each)
     */
    public static void register(PrometheusRegistry registry, List<StorageServerRuntime> servers,
                                List<HostPort> namenodes) {
        List<StorageServerRuntime> all = List.copyOf(servers);
        List<HostPort> nns = List.copyOf(namenodes);
        GaugeWithCallback.builder().name("creel_storage_capacity_bytes")
                .help("Bytes a storage server exports, as it describes itself").labelNames("server", "tier", "class")
                .callback(cb -> all.forEach(s -> {
                    StorageServerInfo i = s.info();
                    cb.call((double) i.blockCount() * i.blockSize(), i.address(), i.tier(), i.storageClass());
                })).register(registry);
        GaugeWithCallback.builder().name("creel_storage_regions")
                .help("Regions of a storage server: granted (to some namenode) or free").labelNames("server", "state")
                .callback(cb -> all.forEach(s -> {
                    RegionArbiter r = s.regions();
                    int free = r.freeRegions();
                    String a = s.info().address();
                    cb.call(r.regionCount() - free, a, "granted");
                    cb.call(free, a, "free");
                })).register(registry);
        GaugeWithCallback.builder().name("creel_storage_registered")
                .help("1 while a storage server is registered with the namenode, else 0").labelNames("server", "namenode")
                .callback(cb -> all.forEach(s -> {
                    String a = s.info().address();
                    for (int i = 0; i < nns.size(); i++) {
                        cb.call(s.serverId(i) != 0 ? 1 : 0, a, nns.get(i).toString());
                    }
                })).register(registry);
    }
}
