package io.creel.ops.metrics;

import io.creel.storage.transport.TransferCounters;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Locale;

/**
 * Bytes this process moved to and from storage servers, per transport and direction, from
 * {@link TransferCounters}. The client side of the data plane: a namenode counts its directory
 * records, an application embedding the client its reads and writes.
 */
public final class TransferMetrics {
    private TransferMetrics() {
    }

    public static void register(PrometheusRegistry registry) {
        CounterWithCallback.builder().name("creel_transfer_bytes")
                .help("Bytes this process read from or wrote to storage servers, per transport (mapped, local-file, "
                        + "tcp, rdma, nvmf-*) and direction")
                .labelNames("transport", "direction")
                .callback(cb -> TransferCounters.forEach((t, d, bytes, pieces) -> cb.call(bytes, t,
                        d.name().toLowerCase(Locale.ROOT)))).register(registry);
        CounterWithCallback.builder().name("creel_transfers")
                .help("Block pieces this process read or wrote, per transport and direction")
                .labelNames("transport", "direction")
                .callback(cb -> TransferCounters.forEach((t, d, bytes, pieces) -> cb.call(pieces, t,
                        d.name().toLowerCase(Locale.ROOT)))).register(registry);
    }
}
