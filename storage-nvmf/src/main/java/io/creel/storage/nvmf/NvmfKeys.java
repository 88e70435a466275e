package io.creel.storage.nvmf;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the "nvmf" tier (a storage server that offers an NVMe-oF namespace in blocks) and of
 * the client transports that reach such a namespace directly. Registered as a {@link ConfKeySource};
 * {@code conf/creel-site.conf} documents each key.
 */
public final class NvmfKeys implements ConfKeySource {
    public static final ConfKey<String> ADDRESS = ConfKey.of("creel.storage.nvmf.address", "", v -> v,
            "Host or IP address of the NVMe-oF target an nvmf storage server connects to; required for that tier.");
    public static final ConfKey<String> ADVERTISE_ADDRESS = ConfKey.of("creel.storage.nvmf.advertise.address", "",
            v -> v, "Target address clients are told to use; empty means creel.storage.nvmf.address.");
    public static final ConfKey<String> TRANSPORT = ConfKey.of("creel.storage.nvmf.transport", "tcp",
            v -> ConfValues.oneOf(v, "tcp", "rdma"),
            "How the nvmf storage server reaches its target: tcp (NVMe/TCP) or rdma (NVMe/RDMA through jNVMf).");
    public static final ConfKey<Integer> TCP_PORT = ConfKey.of("creel.storage.nvmf.tcp.port", "4420",
            v -> ConfValues.parseInt(v, 0, 65535), "The target's NVMe/TCP port; 0 if it offers none.");
    public static final ConfKey<Integer> RDMA_PORT = ConfKey.of("creel.storage.nvmf.rdma.port", "0",
            v -> ConfValues.parseInt(v, 0, 65535), "The target's NVMe/RDMA port (usually 4420); 0 if it offers none.");
    public static final ConfKey<String> NQN = ConfKey.of("creel.storage.nvmf.nqn", "", v -> v,
            "NQN of the NVMe-oF subsystem holding the namespace; required for the nvmf tier.");
    public static final ConfKey<Integer> NSID = ConfKey.of("creel.storage.nvmf.nsid", "1",
            v -> ConfValues.parseInt(v, 1, Integer.MAX_VALUE), "Namespace id the nvmf storage server offers in blocks.");
    public static final ConfKey<Long> SIZE = ConfKey.of("creel.storage.nvmf.size", "0", ConfValues::parseSize,
            "Bytes of the namespace the nvmf tier uses, from its start; 0 means all of it.");
    public static final ConfKey<String> TCP_DIGEST = ConfKey.of("creel.storage.nvmf.tcp.digest", "none",
            v -> ConfValues.oneOf(v, "none", "header", "data", "both"),
            "CRC32C digests on NVMe/TCP PDUs to this target (none, header, data, both); clients use the same.");
    public static final ConfKey<Integer> IO_QUEUES = ConfKey.of("creel.storage.nvmf.io.queues", "2",
            v -> ConfValues.parseInt(v, 1, 64), "I/O queues the nvmf storage server opens to its target.");
    public static final ConfKey<Integer> QUEUE_DEPTH = ConfKey.of("creel.storage.nvmf.queue.depth", "64",
            v -> ConfValues.parseInt(v, 2, 1024), "Commands in flight per I/O queue of the nvmf storage server.");
    public static final ConfKey<Duration> COMMAND_TIMEOUT = ConfKey.of("creel.storage.nvmf.command.timeout", "10s",
            ConfValues::parseDuration, "Longest wait for one NVMe command of the nvmf storage server.");
    public static final ConfKey<Duration> CONNECT_TIMEOUT = ConfKey.of("creel.storage.nvmf.connect.timeout", "10s",
            ConfValues::parseDuration, "Longest wait for the nvmf storage server to connect to its target.");
    public static final ConfKey<Duration> KEEP_ALIVE = ConfKey.of("creel.storage.nvmf.keep.alive", "10s",
            ConfValues::parseDuration,
            "Keep-alive timeout the nvmf storage server asks of its target (NVMe/TCP; a Keep Alive goes every half).");
    public static final ConfKey<Duration> RECONNECT_INTERVAL = ConfKey.of("creel.storage.nvmf.reconnect.interval",
            "2s", ConfValues::parseDuration, "How often an nvmf storage server that lost its target tries to reconnect.");
    public static final ConfKey<String> HOST_NQN = ConfKey.of("creel.storage.nvmf.host.nqn", "", v -> v,
            "Host NQN servers and clients of this process present to targets; empty means a random one per process.");

    public static final ConfKey<Boolean> CLIENT_ACCESS = ConfKey.of("creel.client.nvmf.access", "true",
            ConfValues::parseBoolean,
            "Read and write blocks of nvmf storage servers at their NVMe-oF target directly, not through the server.");
    public static final ConfKey<Boolean> CLIENT_RDMA = ConfKey.of("creel.client.nvmf.rdma", "true",
            ConfValues::parseBoolean,
            "Reach NVMe-oF targets over RDMA (jNVMf) when the target offers it and this machine has RDMA.");
    public static final ConfKey<Integer> CLIENT_IO_QUEUES = ConfKey.of("creel.client.nvmf.io.queues", "2",
            v -> ConfValues.parseInt(v, 1, 64), "I/O queues a client process opens to each NVMe-oF target.");
    public static final ConfKey<Integer> CLIENT_QUEUE_DEPTH = ConfKey.of("creel.client.nvmf.queue.depth", "64",
            v -> ConfValues.parseInt(v, 2, 1024), "Commands in flight per I/O queue of a client's NVMe-oF controller.");
    public static final ConfKey<Duration> CLIENT_COMMAND_TIMEOUT = ConfKey.of("creel.client.nvmf.command.timeout",
            "10s", ConfValues::parseDuration, "Longest wait for one NVMe command of a client.");
    public static final ConfKey<Duration> CLIENT_CONNECT_TIMEOUT = ConfKey.of("creel.client.nvmf.connect.timeout",
            "5s", ConfValues::parseDuration,
            "Longest wait for a client to connect to an NVMe-oF target before it goes through the server instead.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public NvmfKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(ADDRESS, ADVERTISE_ADDRESS, TRANSPORT, TCP_PORT, RDMA_PORT, NQN, NSID, SIZE, TCP_DIGEST,
                IO_QUEUES, QUEUE_DEPTH, COMMAND_TIMEOUT, CONNECT_TIMEOUT, KEEP_ALIVE, RECONNECT_INTERVAL, HOST_NQN,
                CLIENT_ACCESS, CLIENT_RDMA, CLIENT_IO_QUEUES, CLIENT_QUEUE_DEPTH, CLIENT_COMMAND_TIMEOUT,
                CLIENT_CONNECT_TIMEOUT);
    }
}
