package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.nvme.ConnectData;
import java.time.Duration;
import java.util.UUID;

/**
 * How an initiator connects to a controller. Immutable; {@link #defaults()} then {@code with...}.
 *
 * @param hostNqn the host's NQN (default {@code nqn.2014-08.org.nvmexpress:uuid:<hostId>})
 * @param hostId the 128-bit Host Identifier sent in Connect (default: random, one per JVM)
 * @param headerDigest ask for CRC32C header digests (default false)
 * @param dataDigest ask for CRC32C data digests (default false)
 * @param ioQueues I/O queues (TCP connections) to open (default 2), fewer if the controller grants fewer
 * @param queueDepth most commands outstanding on one I/O queue (default 128), fewer if CAP.MQES is lower
 * @param commandTimeout longest wait for a command's completion, counted from when it is sent (default 10 s)
 * @param connectTimeout longest wait for TCP connect, then for ICResp, then for each set-up step (default 10 s)
 * @param keepAlive KATO sent in the admin Connect; a Keep Alive goes out every half of it; ZERO turns
 *     keep alive off (default 10 s)
 * @param maxTransferBytes most data one Read or Write moves (default 1 MiB), lowered to the controller's MDTS
 * @param disableSqFlowControl ask I/O queues to run without SQ flow control, which lets the controller end a
 *     successful Read with its last C2HData PDU instead of a response capsule (default false)
 */
public record NvmeTcpOptions(String hostNqn, UUID hostId, boolean headerDigest, boolean dataDigest, int ioQueues,
        int queueDepth, Duration commandTimeout, Duration connectTimeout, Duration keepAlive, int maxTransferBytes,
        boolean disableSqFlowControl) {

    private static final UUID JVM_HOST_ID = UUID.randomUUID();

    public NvmeTcpOptions {
        ConnectData.checkNqn(hostNqn, "host NQN");
        if (ioQueues < 1 || ioQueues > 1024) {
            throw new IllegalArgumentException("ioQueues must be 1..1024, not " + ioQueues);
        }
        if (queueDepth < 1 || queueDepth > 65535) {
            throw new IllegalArgumentException("queueDepth must be 1..65535, not " + queueDepth);
        }
        requirePositive(commandTimeout, "commandTimeout");
        requirePositive(connectTimeout, "connectTimeout");
        if (keepAlive.isNegative() || keepAlive.toMillis() > Integer.MAX_VALUE
                || (!keepAlive.isZero() && keepAlive.toMillis() < 1000)) {
            throw new IllegalArgumentException("keepAlive must be zero (off) or 1 s..24 days, not " + keepAlive);
        }
        if (maxTransferBytes < 4096) {
            throw new IllegalArgumentException("maxTransferBytes must be at least 4096, not " + maxTransferBytes);
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " must be positive (at most 24 days), not " + d);
        }
    }

    public static NvmeTcpOptions defaults() {
        return new NvmeTcpOptions("nqn.2014-08.org.nvmexpress:uuid:" + JVM_HOST_ID, JVM_HOST_ID, false, false, 2, 128,
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(10), 1 << 20, false);
    }

    public NvmeTcpOptions withHost(String nqn, UUID id) {
        return new NvmeTcpOptions(nqn, id, headerDigest, dataDigest, ioQueues, queueDepth, commandTimeout,
                connectTimeout, keepAlive, maxTransferBytes, disableSqFlowControl);
    }

    public NvmeTcpOptions withDigests(boolean header, boolean data) {
        return new NvmeTcpOptions(hostNqn, hostId, header, data, ioQueues, queueDepth, commandTimeout,
                connectTimeout, keepAlive, maxTransferBytes, disableSqFlowControl);
    }

    public NvmeTcpOptions withIoQueues(int queues, int depth) {
        return new NvmeTcpOptions(hostNqn, hostId, headerDigest, dataDigest, queues, depth, commandTimeout,
                connectTimeout, keepAlive, maxTransferBytes, disableSqFlowControl);
    }

    public NvmeTcpOptions withTimeouts(Duration command, Duration connect) {
        return new NvmeTcpOptions(hostNqn, hostId, headerDigest, dataDigest, ioQueues, queueDepth, command, connect,
                keepAlive, maxTransferBytes, disableSqFlowControl);
    }

    public NvmeTcpOptions withKeepAlive(Duration kato) {
        return new NvmeTcpOptions(hostNqn, hostId, headerDigest, dataDigest, ioQueues, queueDepth, commandTimeout,
                connectTimeout, kato, maxTransferBytes, disableSqFlowControl);
    }

    public NvmeTcpOptions withMaxTransferBytes(int bytes) {
        return new NvmeTcpOptions(hostNqn, hostId, headerDigest, dataDigest, ioQueues, queueDepth, commandTimeout,
                connectTimeout, keepAlive, bytes, disableSqFlowControl);
    }

    public NvmeTcpOptions withSqFlowControlDisabled(boolean disabled) {
        return new NvmeTcpOptions(hostNqn, hostId, headerDigest, dataDigest, ioQueues, queueDepth, commandTimeout,
                connectTimeout, keepAlive, maxTransferBytes, disabled);
    }
}
