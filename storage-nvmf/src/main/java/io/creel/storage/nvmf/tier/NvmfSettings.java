package io.creel.storage.nvmf.tier;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.nvmf.NvmfKeys;
import io.creel.storage.nvmf.format.NvmfAttributes.Digest;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.target.TargetAddress;
import io.creel.storage.nvmf.target.TargetOptions;
import java.time.Duration;

/**
 * An nvmf storage server's settings, read and checked once: the target it connects to, what it tells
 * clients, and how it talks to the target.
 *
 * @param target            where the server connects (its fabric and that fabric's port)
 * @param advertiseAddress  the target host clients are told
 * @param tcpPort           the target's NVMe/TCP port, 0 if none
 * @param rdmaPort          the target's NVMe/RDMA port, 0 if none
 * @param nsid              the namespace offered
 * @param sizeLimit         bytes of the namespace to use, 0 for all
 * @param digest            NVMe/TCP digests
 * @param options           controller options
 * @param reconnectInterval how often to try again after losing the target
 */
record NvmfSettings(TargetAddress target, String advertiseAddress, int tcpPort, int rdmaPort, int nsid,
                    long sizeLimit, Digest digest, TargetOptions options, Duration reconnectInterval) {

    /** Reads the {@code creel.storage.nvmf.*} keys; a missing or contradictory setting is CONFIGURATION naming the key. */
    static NvmfSettings from(CreelConf conf) {
        String address = conf.get(NvmfKeys.ADDRESS).trim();
        if (address.isEmpty()) {
            throw new CreelException(ErrorCode.CONFIGURATION, NvmfKeys.ADDRESS.name() + " is not set: the nvmf tier "
                    + "needs the host or IP address of its NVMe-oF target");
        }
        String nqn = conf.get(NvmfKeys.NQN).trim();
        if (nqn.isEmpty()) {
            throw new CreelException(ErrorCode.CONFIGURATION, NvmfKeys.NQN.name() + " is not set: the nvmf tier needs "
                    + "the NQN of the subsystem holding its namespace");
        }
        Fabric fabric = Fabric.parse(conf.get(NvmfKeys.TRANSPORT));
        int tcpPort = conf.get(NvmfKeys.TCP_PORT);
        int rdmaPort = conf.get(NvmfKeys.RDMA_PORT);
        int port = fabric == Fabric.TCP ? tcpPort : rdmaPort;
        if (port == 0) {
            String key = (fabric == Fabric.TCP ? NvmfKeys.TCP_PORT : NvmfKeys.RDMA_PORT).name();
            throw new CreelException(ErrorCode.CONFIGURATION, NvmfKeys.TRANSPORT.name() + " is " + fabric.text()
                    + " but " + key + " is 0 (the target offers no such port); set the port the target listens on");
        }
        String advertise = conf.get(NvmfKeys.ADVERTISE_ADDRESS).trim();
        Digest digest = Digest.parse(conf.get(NvmfKeys.TCP_DIGEST));
        TargetOptions options = new TargetOptions(conf.get(NvmfKeys.HOST_NQN).trim(), digest,
                conf.get(NvmfKeys.IO_QUEUES), conf.get(NvmfKeys.QUEUE_DEPTH), positive(conf, NvmfKeys.COMMAND_TIMEOUT),
                positive(conf, NvmfKeys.CONNECT_TIMEOUT), keepAlive(conf));
        try {
            return new NvmfSettings(new TargetAddress(fabric, address, port, nqn), advertise.isEmpty() ? address
                    : advertise, tcpPort, rdmaPort, conf.get(NvmfKeys.NSID), conf.get(NvmfKeys.SIZE), digest, options,
                    positive(conf, NvmfKeys.RECONNECT_INTERVAL));
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "nvmf tier: " + e.getMessage(), e);
        }
    }

    private static Duration positive(CreelConf conf, io.creel.common.conf.ConfKey<Duration> key) {
        Duration d = conf.get(key);
        if (d.isNegative() || d.isZero()) {
            throw new CreelException(ErrorCode.CONFIGURATION, key.name() + " must be positive, not " + d);
        }
        return d;
    }

    private static Duration keepAlive(CreelConf conf) {
        Duration d = conf.get(NvmfKeys.KEEP_ALIVE);
        if (!d.isZero() && d.toMillis() < 1000) {
            throw new CreelException(ErrorCode.CONFIGURATION, NvmfKeys.KEEP_ALIVE.name()
                    + " must be 0 (off) or at least 1s, not " + d);
        }
        return d;
    }

    /** The longest a synchronous medium call waits for its NVMe commands (each is bounded by the command timeout). */
    Duration mediumWait() {
        return options.commandTimeout().multipliedBy(3);
    }

    /** The longest connecting and identifying may take in all (each step is bounded on its own). */
    Duration connectWait() {
        return options.connectTimeout().multipliedBy(4).plus(options.commandTimeout().multipliedBy(4));
    }
}
