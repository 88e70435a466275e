package io.creel.storage.nvmf.target;

import io.creel.storage.nvmf.format.NvmfAttributes.Digest;
import java.time.Duration;

/**
 * How a host talks to a controller, whatever the fabric.
 *
 * @param hostNqn        the host NQN to present; empty for one made up per process
 * @param digest         CRC32C digests (NVMe/TCP only)
 * @param ioQueues       I/O queues to open
 * @param queueDepth     commands in flight per I/O queue
 * @param commandTimeout longest wait for one command
 * @param connectTimeout longest wait for connecting (each step)
 * @param keepAlive      the keep-alive timeout asked of the controller (NVMe/TCP; jNVMf asks for its own)
 */
public record TargetOptions(String hostNqn, Digest digest, int ioQueues, int queueDepth, Duration commandTimeout,
                            Duration connectTimeout, Duration keepAlive) {
    public TargetOptions {
        if (ioQueues < 1) {
            throw new IllegalArgumentException("at least one I/O queue, not " + ioQueues);
        }
        if (queueDepth < 2) {
            throw new IllegalArgumentException("queue depth of at least 2, not " + queueDepth);
        }
    }
}
