package io.creel.namenode.records;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.common.storage.BlockTransport;
import io.creel.common.storage.BlockTransportProvider;
import io.creel.common.storage.TransportContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes directory records through the data plane, like any client: per storage server, the
 * cheapest {@link BlockTransportProvider} (found by {@link ServiceLoader}) that can reach the server
 * and write. Transports are opened on first use and kept until close.
 */
public final class DataPlaneRecordStore implements RecordStore {
    private static final Logger LOG = LoggerFactory.getLogger(DataPlaneRecordStore.class);

    private final List<BlockTransportProvider> providers;
    private final TransportContext context;
    private final RpcConnections connections;
    private final ConcurrentHashMap<StorageServerInfo, BlockTransport> transports = new ConcurrentHashMap<>();

    /** A store using the providers on the class path and its own connections over {@code loops}. */
    public DataPlaneRecordStore(CreelConf conf, EventLoops loops) {
        this(loadProviders(), conf, new RpcConnections(loops, conf));
    }

    DataPlaneRecordStore(List<BlockTransportProvider> providers, CreelConf conf, RpcConnections connections) {
        List<BlockTransportProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparingInt(BlockTransportProvider::cost));
        this.providers = List.copyOf(sorted);
        this.connections = connections;
        this.context = new TransportContext(conf, connections);
    }

    private static List<BlockTransportProvider> loadProviders() {
        List<BlockTransportProvider> list = new ArrayList<>();
        ServiceLoader.load(BlockTransportProvider.class).forEach(list::add);
        return list;
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer record) {
        BlockTransport t;
        try {
            t = transports.computeIfAbsent(block.server(), this::open);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (t == null) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE,
                    "no block transport can write to storage server " + block.server().address() + " (tier "
                            + block.server().tier() + "); providers on the class path: " + names()));
        }
        return t.write(block, offset, record);
    }

    private BlockTransport open(StorageServerInfo server) {
        for (BlockTransportProvider p : providers) {
            BlockTransport t = p.open(server, context);
            if (t == null) {
                continue;
            }
            if (t.supportsWrite()) {
                LOG.debug("directory records to {} go through {}", server.address(), t.name());
                return t;
            }
            t.close();
        }
        return null;
    }

    private String names() {
        List<String> n = providers.stream().map(BlockTransportProvider::name).toList();
        return n.isEmpty() ? "none" : String.join(", ", n);
    }

    @Override
    public void close() {
        transports.values().forEach(BlockTransport::close);
        transports.clear();
        connections.close();
    }
}
