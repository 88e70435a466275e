package io.creel.storage.server;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.RequestType;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcServer;
import io.creel.storage.StorageKeys;
import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.ExportContext;
import io.creel.storage.spi.StorageTier;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One storage server's data plane: its port, its tier's {@link Volume}, and every
 * {@link BlockExporter} serving the volume. It knows no namenode (registration is the
 * {@link io.creel.storage.runtime.StorageServerRuntime}'s) and names no concrete tier or exporter:
 * both are found through {@link ServiceLoader}.
 *
 * <p>Starting is two-phase: {@link #open} binds the port, opens the volume and starts the exporters;
 * requests are answered UNAVAILABLE until {@link #serve}, so the runtime can route its own requests
 * (region grants) first.
 */
public final class StorageServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StorageServer.class);

    private final String tier;
    private final RequestRouter router;
    private final RpcServer rpc;
    private final Volume volume;
    private final List<BlockExporter.Export> exports;
    private final StorageServerInfo info;
    private boolean closed;

    private StorageServer(String tier, RequestRouter router, RpcServer rpc, Volume volume,
                          List<BlockExporter.Export> exports, StorageServerInfo info) {
        this.tier = tier;
        this.router = router;
        this.rpc = rpc;
        this.volume = volume;
        this.exports = exports;
        this.info = info;
    }

    /** The tiers on the class path, by name. */
    public static List<String> availableTiers() {
        List<String> names = new ArrayList<>();
        for (StorageTier t : ServiceLoader.load(StorageTier.class, StorageTier.class.getClassLoader())) {
            names.add(t.name());
        }
        return names;
    }

    /** Finds a tier by name, or fails with a message listing the tiers there are. */
    public static StorageTier findTier(String name) {
        for (StorageTier t : ServiceLoader.load(StorageTier.class, StorageTier.class.getClassLoader())) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new CreelException(ErrorCode.CONFIGURATION, "unknown storage tier '" + name + "'; available: "
                + String.join(", ", availableTiers()));
    }

    /**
     * Opens a server of tier {@code tierName} on {@code loops} (not closed by the server): binds its
     * port, opens the volume, starts every exporter that can serve it. It answers UNAVAILABLE until
     * {@link #serve}.
     *
     * @param advertiseHost host name clients use to reach it
     * @param hostId        identity of this machine
     */
    public static StorageServer open(CreelConf conf, String tierName, EventLoops loops, String advertiseHost,
                                     String hostId) {
        StorageTier tier = findTier(tierName);
        // The tiers' own request types, registered before the port is bound: a collision stops the server here.
        OpcodeRegistry.installed();
        String storageClass = conf.get(StorageKeys.CLASS).isEmpty() ? tierName : conf.get(StorageKeys.CLASS);
        if (!conf.get(ConfKeys.STORAGE_CLASSES).contains(storageClass)) {
            throw new CreelException(ErrorCode.CONFIGURATION, "storage class '" + storageClass
                    + "' is not in creel.storage.classes (" + String.join(",", conf.get(ConfKeys.STORAGE_CLASSES)) + ")");
        }
        RequestRouter router = new RequestRouter(tierName + " storage");
        RpcServer[] bound = new RpcServer[1];
        TierContext.PortBinder binder = port -> {
            if (bound[0] != null) {
                throw new IllegalStateException("tier " + tierName + " bound its port twice");
            }
            bound[0] = RpcServer.start(tierName + " storage", conf.get(StorageKeys.BIND_HOST), port, loops, conf,
                    router);
            return bound[0].port();
        };
        Volume volume = null;
        List<BlockExporter.Export> exports = new ArrayList<>();
        try {
            volume = tier.open(new TierContext(conf, storageClass, advertiseHost, hostId, binder));
            if (bound[0] == null) {
                throw new CreelException(ErrorCode.CONFIGURATION, "tier " + tierName
                        + " opened its volume without binding a port (a tier calls TierContext.listen once)");
            }
            int port = bound[0].port();
            String name = tierName + " storage " + hostPort(advertiseHost, port);
            Map<String, String> attributes = new LinkedHashMap<>(volume.attributes());
            ExportContext ctx = new Context(conf, loops, name, router);
            List<String> names = new ArrayList<>();
            for (BlockExporter e : ServiceLoader.load(BlockExporter.class, BlockExporter.class.getClassLoader())) {
                BlockExporter.Export export = e.export(volume, ctx);
                if (export != null) {
                    exports.add(export);
                    attributes.putAll(export.attributes());
                    names.add(e.name());
                }
            }
            if (exports.isEmpty()) {
                throw new CreelException(ErrorCode.CONFIGURATION, name + ": no block exporter on the class path "
                        + "serves this volume (is creel-storage-tcp missing?)");
            }
            if (!conf.get(StorageKeys.RACK).isEmpty()) {
                attributes.put("rack", conf.get(StorageKeys.RACK)); // read by the namenode's placement of copies
            }
            StorageServerInfo info = StorageServerInfo.of(0, tierName, storageClass, advertiseHost, port, hostId,
                    volume.medium().blockCount(), volume.medium().blockSize(), volume.token(), attributes);
            LOG.debug("{}: served over {}", name, names);
            return new StorageServer(tierName, router, bound[0], volume, exports, info);
        } catch (RuntimeException e) {
            if (bound[0] != null) {
                bound[0].close();
            }
            exports.forEach(StorageServer::closeQuietly);
            if (volume != null) {
                volume.close();
            }
            throw e;
        }
    }

    private static String hostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** Serves {@code opcode} on this server's port with {@code handler}; only before {@link #serve}. */
    public void route(RequestType opcode, RequestHandler handler) {
        router.route(opcode, handler);
    }

    /** Starts answering requests. */
    public void serve() {
        router.open(volume);
    }

    /** How clients reach this server; the server id is 0 (namenodes assign their own). */
    public StorageServerInfo describe() {
        return info;
    }

    /** The tier's name. */
    public String tier() {
        return tier;
    }

    /** The server's block tags. */
    public BlockTags tags() {
        return volume.tags();
    }

    /** The volume's summary line for the log. */
    public String summary() {
        return volume.summary();
    }

    /** Why the volume cannot serve right now ({@link Volume#unavailable()}), or {@code null}. */
    public String unavailable() {
        return volume.unavailable();
    }

    /** The port bound. */
    public int port() {
        return rpc.port();
    }

    /** Stops serving (the port first, so no request touches the volume after), then releases the volume. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        rpc.close();
        exports.forEach(StorageServer::closeQuietly);
        volume.close();
    }

    private static void closeQuietly(BlockExporter.Export e) {
        try {
            e.close();
        } catch (RuntimeException ex) {
            LOG.warn("stopping a block export failed: {}", ex.toString());
        }
    }

    private record Context(CreelConf conf, EventLoops loops, String serverName, RequestRouter router)
            implements ExportContext {
        @Override
        public void route(RequestType opcode, RequestHandler handler) {
            router.route(opcode, handler);
        }
    }
}
