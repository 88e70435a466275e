package io.creel.storage.rdma.transport;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.spi.TransportCost;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "rdma": one-sided RDMA reads and writes of the storage servers whose description carries an rdma
 * export ({@link RdmaExportLayout}). Costs {@link TransportCost#ONE_SIDED_RDMA}: dearer than same-host
 * mapping, cheaper than TCP. Where this process cannot use RDMA it offers nothing (logging once what is missing), and
 * the client uses TCP. Found through {@link java.util.ServiceLoader}.
 */
public final class RdmaTransportProvider implements BlockTransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaTransportProvider.class);
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private final RdmaFabric fabric;

    /** For {@link java.util.ServiceLoader}: the process's devices. */
    public RdmaTransportProvider() {
        this(RdmaFabric.shared());
    }

    /** A provider on {@code fabric} (tests: a fake network). */
    public RdmaTransportProvider(RdmaFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public int cost() {
        return TransportCost.ONE_SIDED_RDMA.value();
    }

    @Override
    public String unavailableReason(CreelConf conf) {
        if (RdmaTierKeys.disabled(conf)) {
            return RdmaTierKeys.ENABLED.name() + " is false";
        }
        return fabric.unavailableReason();
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        CreelConf conf = context.conf();
        if (RdmaTierKeys.disabled(conf) || !RdmaExportLayout.offeredBy(server)) {
            return null;
        }
        String missing = fabric.unavailableReason();
        if (missing != null) {
            sayOnce("RDMA transport not used: " + missing);
            return null;
        }
        RdmaExportLayout layout;
        try {
            layout = RdmaExportLayout.of(server);
        } catch (IllegalArgumentException e) {
            sayOnce("storage server " + server.address() + " describes an RDMA export this client cannot use: "
                    + e.getMessage());
            return null;
        }
        RdmaClientRuntime runtime;
        try {
            runtime = RdmaClientRuntime.acquire(fabric, conf);
        } catch (RdmaException | RuntimeException e) {
            sayOnce("RDMA transport not used: " + e.getMessage());
            return null;
        }
        try {
            return new RdmaTransport(server, layout, runtime.endpoint(layout, server.localToken(),
                    "storage server " + server.address()), runtime);
        } catch (RdmaException | RuntimeException e) {
            runtime.release();
            sayOnce("RDMA transport to storage server " + server.address() + " not used: " + e.getMessage());
            return null;
        }
    }

    private static void sayOnce(String message) {
        if (SAID.add(message)) {
            LOG.info("{}", message);
        }
    }
}
