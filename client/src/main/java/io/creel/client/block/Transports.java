package io.creel.client.block;

import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
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
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks how to move bytes to each storage server: the cheapest {@link BlockTransportProvider}
 * (found by {@link ServiceLoader}) that can reach it, separately for reads and writes (a read-only
 * transport leaves writes to a costlier one). The choice is kept per server. When a cheaper
 * (same-host) transport fails for a reason other than the data itself (stale block, missing block,
 * bad range), the next costlier transport, in the end TCP, takes over for that server.
 */
public final class Transports implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Transports.class);

    private final List<BlockTransportProvider> providers;
    private final TransportContext context;
    private final ConcurrentHashMap<ServerKey, Choice> reads = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ServerKey, Choice> writes = new ConcurrentHashMap<>();
    /** Every open attempt's outcome per (server, provider), so reads and writes share one transport. */
    private final ConcurrentHashMap<OpenKey, java.util.Optional<BlockTransport>> opened = new ConcurrentHashMap<>();

    private record OpenKey(ServerKey server, int providerIndex) {
    }

    /** Server ids are assigned per namenode, so a server is named by its address and start token. */
    private record ServerKey(String host, int port, long token) {
        static ServerKey of(StorageServerInfo s) {
            return new ServerKey(s.host(), s.port(), s.localToken());
        }
    }

    /** The transport in use for one server and the provider index it came from. */
    private record Choice(int providerIndex, BlockTransport transport) {
    }

    public Transports(TransportContext context) {
        this(loadProviders(), context);
    }

    public Transports(List<BlockTransportProvider> providers, TransportContext context) {
        List<BlockTransportProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparingInt(BlockTransportProvider::cost));
        this.providers = List.copyOf(sorted);
        this.context = context;
    }

    /** Every provider on the class path, cheapest first. */
    public static List<BlockTransportProvider> loadProviders() {
        List<BlockTransportProvider> list = new ArrayList<>();
        ServiceLoader.load(BlockTransportProvider.class).forEach(list::add);
        list.sort(Comparator.comparingInt(BlockTransportProvider::cost));
        return list;
    }

    /** Reads {@code dst.remaining()} bytes at {@code offset} of the block. */
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        return run(reads, false, block, dst, (t, b) -> t.read(block, offset, b));
    }

    /** Writes {@code src.remaining()} bytes at {@code offset} of the block. */
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        return run(writes, true, block, src, (t, b) -> t.write(block, offset, b));
    }

    /** The name of the transport currently used to read from {@code server} (for tests and logs). */
    public String readTransportName(StorageServerInfo server) {
        return choose(reads, false, server, -1).transport().name();
    }

    private CompletableFuture<Void> run(ConcurrentHashMap<ServerKey, Choice> table, boolean write, BlockLocation block,
                                        ByteBuffer buf, BiFunction<BlockTransport, ByteBuffer, CompletableFuture<Void>> op) {
        Choice choice;
        try {
            choice = choose(table, write, block.server(), -1);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        int start = buf.position();
        CompletableFuture<Void> out = new CompletableFuture<>();
        attempt(choice, op, buf).whenComplete((v, t) -> {
            if (t == null) {
                out.complete(null);
                return;
            }
            CreelException e = CreelException.unwrap(t);
            if (!fallsBack(e) || choice.providerIndex() >= providers.size() - 1) {
                out.completeExceptionally(e);
                return;
            }
            Choice next;
            try {
                next = choose(table, write, block.server(), choice.providerIndex());
            } catch (CreelException none) {
                out.completeExceptionally(e);
                return;
            }
            LOG.info("{} transport to {} failed ({}); using {} instead", choice.transport().name(),
                    block.server().address(), e.getMessage(), next.transport().name());
            buf.position(start);
            attempt(next, op, buf).whenComplete((v2, t2) -> {
                if (t2 == null) {
                    out.complete(null);
                } else {
                    out.completeExceptionally(CreelException.unwrap(t2));
                }
            });
        });
        return out;
    }

    private static CompletableFuture<Void> attempt(Choice c, BiFunction<BlockTransport, ByteBuffer,
            CompletableFuture<Void>> op, ByteBuffer buf) {
        return Futures.guard(() -> op.apply(c.transport(), buf));
    }

    /** Errors about the data itself mean every transport would fail the same way. */
    private static boolean fallsBack(CreelException e) {
        return switch (e.code()) {
            case STALE_BLOCK, NOT_FOUND, INVALID_ARGUMENT -> false;
            default -> true;
        };
    }

    /**
     * The transport for {@code server}: the cached choice unless it came from provider
     * {@code failedIndex}, in which case the next provider after it that can reach the server.
     */
    private Choice choose(ConcurrentHashMap<ServerKey, Choice> table, boolean write, StorageServerInfo server,
                          int failedIndex) {
        ServerKey key = ServerKey.of(server);
        Choice current = table.get(key);
        if (current != null && current.providerIndex() > failedIndex) {
            return current;
        }
        synchronized (table) {
            current = table.get(key);
            if (current != null && current.providerIndex() > failedIndex) {
                return current;
            }
            for (int i = failedIndex + 1; i < providers.size(); i++) {
                int index = i;
                BlockTransport t = opened.computeIfAbsent(new OpenKey(key, i),
                        k -> java.util.Optional.ofNullable(open(providers.get(index), server))).orElse(null);
                if (t != null && (!write || t.supportsWrite())) {
                    Choice c = new Choice(i, t);
                    table.put(key, c);
                    LOG.debug("{} {} via {}", write ? "writing to" : "reading from", server.address(), t.name());
                    return c;
                }
            }
        }
        throw new CreelException(ErrorCode.UNAVAILABLE, "no transport can " + (write ? "write to" : "read from")
                + " storage server " + server.address() + " (tier " + server.tier() + "); providers tried: "
                + providers.stream().map(BlockTransportProvider::name).toList());
    }

    private BlockTransport open(BlockTransportProvider p, StorageServerInfo server) {
        try {
            return p.open(server, context);
        } catch (RuntimeException e) {
            LOG.debug("transport {} cannot reach {}: {}", p.name(), server.address(), e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        for (java.util.Optional<BlockTransport> o : opened.values()) {
            o.ifPresent(t -> {
                try {
                    t.close();
                } catch (RuntimeException e) {
                    LOG.debug("closing transport {}: {}", t.name(), e.toString());
                }
            });
        }
        opened.clear();
        reads.clear();
        writes.clear();
    }
}
