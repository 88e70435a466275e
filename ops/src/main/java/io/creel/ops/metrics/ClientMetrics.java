package io.creel.ops.metrics;

import io.creel.client.CreelClient;
import io.creel.client.block.BlockLocationCache;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** One client's block-location cache, read when Prometheus scrapes. */
final class ClientMetrics {
    private ClientMetrics() {
    }

    static void register(PrometheusRegistry registry, CreelClient client) {
        BlockLocationCache cache = client.blockCache();
        CounterWithCallback.builder().name("creel_client_block_cache_hits")
                .help("Block locations the client found in its cache (no namenode round trip)")
                .callback(cb -> cb.call(cache.hits())).register(registry);
        CounterWithCallback.builder().name("creel_client_block_cache_misses")
                .help("Block locations the client had to ask a namenode for")
                .callback(cb -> cb.call(cache.misses())).register(registry);
        GaugeWithCallback.builder().name("creel_client_block_cache_entries")
                .help("Block locations the client's cache holds").callback(cb -> cb.call(cache.size()))
                .register(registry);
    }
}
