package io.creel.storage.rdma.tier;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.storage.rdma.RdmaSettings;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the RDMA tier: the rdma block exporter (storage servers), the rdma transport
 * (clients), the rdma:// metadata RPC, and the verbs layer under them. Registered as a
 * {@link ConfKeySource}; {@code conf/creel-site.conf} and the module README document each key.
 */
public final class RdmaTierKeys implements ConfKeySource {
    public static final ConfKey<String> ENABLED = ConfKey.of("creel.rdma.enabled", "auto",
            v -> ConfValues.oneOf(v, "auto", "true", "false"),
            "RDMA for DRAM storage servers and their clients: auto (where this machine has it; otherwise say once "
                    + "what is missing and use TCP), true (a storage server fails to start without it), false.");
    public static final ConfKey<String> ADDRESS = ConfKey.of("creel.rdma.address", "", v -> v.trim(),
            "IP address of the RDMA interface this process uses; empty means the first address of the first RDMA "
                    + "device's network interface.");
    public static final ConfKey<Integer> PORT = ConfKey.of("creel.rdma.port", "0",
            v -> ConfValues.parseInt(v, 0, 65535),
            "RDMA port a storage server's rdma exporter listens on; 0 picks a free one (clients learn it from the "
                    + "server's description).");
    public static final ConfKey<Integer> CONNECT_TIMEOUT_MS = ConfKey.of(RdmaSettings.CONNECT_TIMEOUT_MS, "5000",
            v -> ConfValues.parseInt(v, 1, Integer.MAX_VALUE),
            "Milliseconds an RDMA connect may take, address and route resolution included.");
    public static final ConfKey<Integer> OPERATION_TIMEOUT_MS = ConfKey.of(RdmaSettings.OPERATION_TIMEOUT_MS,
            "10000", v -> ConfValues.parseInt(v, 1, Integer.MAX_VALUE),
            "Milliseconds one RDMA read, write or compare-and-swap may take; past it the connection breaks.");
    public static final ConfKey<Integer> QUEUE_DEPTH = ConfKey.of(RdmaSettings.QUEUE_DEPTH, "64",
            v -> ConfValues.parseInt(v, 1, RdmaSettings.MAX_QUEUE_DEPTH),
            "RDMA operations posted per connection at a time; more wait their turn.");
    public static final ConfKey<Integer> CQ_SIZE = ConfKey.of(RdmaSettings.CQ_SIZE, "4096",
            v -> ConfValues.parseInt(v, 1, 1 << 22),
            "Completion entries per RDMA device; bounds connections x queue depth.");
    public static final ConfKey<Integer> LISTEN_BACKLOG = ConfKey.of(RdmaSettings.LISTEN_BACKLOG, "128",
            v -> ConfValues.parseInt(v, 1, 65535), "RDMA connection requests a listener queues.");
    public static final ConfKey<Long> BUFFER_SIZE = ConfKey.of("creel.rdma.buffer.size", "1m",
            v -> ConfValues.parseBounded(v, 4096, 256L << 20),
            "Bytes of one registered client buffer; a transfer moves through one buffer, in pieces of this size.");
    public static final ConfKey<Integer> BUFFER_COUNT = ConfKey.of("creel.rdma.buffer.count", "32",
            v -> ConfValues.parseInt(v, 1, 4096),
            "Registered client buffers per process, registered once when the process first reaches a server over RDMA: this many "
                    + "transfers run at once, more wait for a buffer (count x size at most 2 GiB).");
    public static final ConfKey<Long> RPC_MESSAGE_SIZE = ConfKey.of("creel.rdma.rpc.message.size", "64k",
            v -> ConfValues.parseBounded(v, 1024, 16L << 20),
            "Largest request or reply of the rdma:// metadata RPC; larger ones fail with an error naming this key.");
    public static final ConfKey<Integer> RPC_QUEUE_DEPTH = ConfKey.of("creel.rdma.rpc.queue.depth", "16",
            v -> ConfValues.parseInt(v, 1, 1024),
            "Requests in flight per rdma:// metadata connection; more wait their turn.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public RdmaTierKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(ENABLED, ADDRESS, PORT, CONNECT_TIMEOUT_MS, OPERATION_TIMEOUT_MS, QUEUE_DEPTH, CQ_SIZE,
                LISTEN_BACKLOG, BUFFER_SIZE, BUFFER_COUNT, RPC_MESSAGE_SIZE, RPC_QUEUE_DEPTH);
    }

    /** The verbs layer's settings from {@code conf}. */
    public static RdmaSettings settings(CreelConf conf) {
        int depth = conf.get(QUEUE_DEPTH);
        return new RdmaSettings(Duration.ofMillis(conf.get(CONNECT_TIMEOUT_MS)),
                Duration.ofMillis(conf.get(OPERATION_TIMEOUT_MS)), depth, Math.max(depth, conf.get(CQ_SIZE)),
                conf.get(LISTEN_BACKLOG));
    }

    /** Whether RDMA is switched off ({@code creel.rdma.enabled=false}). */
    public static boolean disabled(CreelConf conf) {
        return conf.get(ENABLED).equals("false");
    }

    /** Whether RDMA is required ({@code creel.rdma.enabled=true}). */
    public static boolean required(CreelConf conf) {
        return conf.get(ENABLED).equals("true");
    }
}
