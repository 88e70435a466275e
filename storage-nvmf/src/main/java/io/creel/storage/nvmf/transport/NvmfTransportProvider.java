package io.creel.storage.nvmf.transport;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.nvmf.NvmfKeys;
import io.creel.storage.nvmf.format.NvmfAttributes;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.target.TargetAddress;
import io.creel.storage.nvmf.target.TargetOptions;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.spi.TransportCost;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reaches the NVMe-oF target of an nvmf storage server directly, over one fabric. Two of these are
 * registered: {@link Rdma} and {@link Tcp} ({@link TransportCost#DEVICE_OVER_RDMA}, {@link
 * TransportCost#DEVICE_OVER_TCP}), both dearer than same-host access and cheaper than TCP through the
 * server, so a client takes RDMA where it can, else NVMe/TCP, else
 * the server; a transport that fails moves the client to the next one for that server.
 */
public abstract class NvmfTransportProvider implements BlockTransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTransportProvider.class);
    /** Keep-alive timeout client controllers ask for; a Keep Alive goes every half of it. */
    static final Duration CLIENT_KEEP_ALIVE = Duration.ofSeconds(10);

    private final Fabric fabric;

    NvmfTransportProvider(Fabric fabric) {
        this.fabric = fabric;
    }

    /** NVMe/RDMA through jNVMf, where the target offers it and this machine has RDMA. */
    public static final class Rdma extends NvmfTransportProvider {
        public Rdma() {
            super(Fabric.RDMA);
        }

        @Override
        public int cost() {
            return TransportCost.DEVICE_OVER_RDMA.value();
        }
    }

    /** NVMe/TCP through this module's initiator. */
    public static final class Tcp extends NvmfTransportProvider {
        public Tcp() {
            super(Fabric.TCP);
        }

        @Override
        public int cost() {
            return TransportCost.DEVICE_OVER_TCP.value();
        }
    }

    @Override
    public String name() {
        return "nvmf-" + fabric.text();
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        CreelConf conf = context.conf();
        if (!conf.get(NvmfKeys.CLIENT_ACCESS)) {
            return null;
        }
        NvmfAttributes attributes;
        try {
            attributes = NvmfAttributes.of(server);
        } catch (IllegalArgumentException e) {
            LOG.warn("{}: not reaching its NVMe-oF target directly: {}", server.address(), e.getMessage());
            return null;
        }
        if (attributes == null) {
            return null; // not an nvmf server
        }
        int port = fabric == Fabric.TCP ? attributes.tcpPort() : attributes.rdmaPort();
        if (port == 0 || (fabric == Fabric.RDMA && (!conf.get(NvmfKeys.CLIENT_RDMA) || !RdmaSupport.available()))) {
            return null;
        }
        TargetAddress target = new TargetAddress(fabric, attributes.address(), port, attributes.nqn());
        TargetOptions options = new TargetOptions(conf.get(NvmfKeys.HOST_NQN).trim(), attributes.digest(),
                conf.get(NvmfKeys.CLIENT_IO_QUEUES), conf.get(NvmfKeys.CLIENT_QUEUE_DEPTH),
                conf.get(NvmfKeys.CLIENT_COMMAND_TIMEOUT), conf.get(NvmfKeys.CLIENT_CONNECT_TIMEOUT),
                CLIENT_KEEP_ALIVE);
        SharedTargets.Lease lease = SharedTargets.process().acquire(target, attributes.nsid(), options);
        return new NvmfTransport(name(), server, attributes, target, lease, context.connections());
    }
}
