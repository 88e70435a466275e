package io.creel.storage.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rule for how bytes reach a storage server, written once: every {@link BlockTransportProvider}
 * on the class path, cheapest first; per server, the first that can reach it (separately for reads
 * and writes, since a read-only transport leaves writes to a costlier one); after a transport fails
 * for a reason of its own, the next costlier one for that server from then on
 * ({@code creel.client.transports} may narrow the providers to some by name). Clients and the
 * namenode (its directory records) both use it, through {@link BlockTransfers}.
 *
 * <p>Each provider is asked at most once per server; what it opened is shared by reads and writes
 * and closed with the selector.
 */
public final class TransportSelector implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransportSelector.class);

    /** Reading or writing: a transport may do only the first. */
    public enum Direction {
        READ, WRITE
    }

    /** The transport used for a server, and its provider's rank (0 = cheapest). */
    record Choice(int rank, BlockTransport transport) {
    }

    /** Server ids are assigned per namenode, so a server is named by its address and medium token. */
    private record ServerKey(String host, int port, long token) {
        static ServerKey of(StorageServerInfo s) {
            return new ServerKey(s.host(), s.port(), s.localToken());
        }
    }

    private record ChoiceKey(ServerKey server, Direction direction) {
    }

    private record OpenKey(ServerKey server, int rank) {
    }

    private final List<BlockTransportProvider> providers;
    private final TransportContext context;
    private final ConcurrentHashMap<ChoiceKey, Choice> choices = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<OpenKey, Optional<BlockTransport>> opened = new ConcurrentHashMap<>();
    /** Set by {@link #close}, under the lock of {@code choices}. */
    private boolean closed;

    /** A selector over every provider on the class path. */
    public TransportSelector(TransportContext context) {
        this(loadProviders(), context);
    }

    /**
     * A selector over {@code providers} (any order; sorted by cost here), or those of them that
     * {@code creel.client.transports} names when it names any.
     *
     * @throws CreelException CONFIGURATION when that key names a transport that is not among them
     */
    public TransportSelector(List<BlockTransportProvider> providers, TransportContext context) {
        List<BlockTransportProvider> sorted = new ArrayList<>(allowed(providers, context));
        sorted.sort(Comparator.comparingInt(BlockTransportProvider::cost));
        this.providers = List.copyOf(sorted);
        this.context = context;
    }

    private static List<BlockTransportProvider> allowed(List<BlockTransportProvider> providers,
                                                        TransportContext context) {
        List<String> names = context.conf().get(TransportKeys.TRANSPORTS);
        if (names.isEmpty()) {
            return providers;
        }
        List<String> present = providers.stream().map(BlockTransportProvider::name).toList();
        for (String n : names) {
            if (!present.contains(n)) {
                throw new CreelException(ErrorCode.CONFIGURATION, TransportKeys.TRANSPORTS.name() + " names transport '"
                        + n + "', which is not on the class path (there are: " + String.join(", ", present) + ")");
            }
        }
        return providers.stream().filter(p -> names.contains(p.name())).toList();
    }

    /** Every provider on the class path, cheapest first. */
    public static List<BlockTransportProvider> loadProviders() {
        List<BlockTransportProvider> list = new ArrayList<>();
        // The SPI's own loader, not the thread's: inside Spark or Hadoop the two may differ.
        ServiceLoader.load(BlockTransportProvider.class, BlockTransportProvider.class.getClassLoader())
                .forEach(list::add);
        list.sort(Comparator.comparingInt(BlockTransportProvider::cost));
        return list;
    }

    /** The providers, cheapest first. */
    public List<BlockTransportProvider> providers() {
        return providers;
    }

    /** The name of the transport now used to reach {@code server} in {@code direction} (for tests and logs). */
    public String transportName(StorageServerInfo server, Direction direction) {
        return choose(server, direction).transport().name();
    }

    /** The transport for {@code server}: the one chosen before, else the cheapest that can reach it. */
    Choice choose(StorageServerInfo server, Direction direction) {
        Choice c = choices.get(new ChoiceKey(ServerKey.of(server), direction));
        return c != null ? c : chooseAfter(server, direction, -1);
    }

    /**
     * The next costlier transport after {@code failed} for {@code server}, which from now on is the
     * choice for that server, or {@code null} if none is left. If another caller already moved on
     * past {@code failed}, its choice is returned. {@code why} (the failure) goes into the one log
     * line that says so.
     */
    Choice fallBack(StorageServerInfo server, Direction direction, Choice failed, Throwable why) {
        try {
            Choice next = chooseAfter(server, direction, failed.rank());
            if (next.transport() != failed.transport()) {
                LOG.info("{} transport to {} failed ({}); {} from now on", failed.transport().name(),
                        server.address(), why.getMessage(), next.transport().name());
            }
            return next;
        } catch (CreelException none) {
            return null;
        }
    }

    /** The first provider ranked above {@code failedRank} that reaches {@code server}; becomes the choice. */
    private Choice chooseAfter(StorageServerInfo server, Direction direction, int failedRank) {
        ServerKey server0 = ServerKey.of(server);
        ChoiceKey key = new ChoiceKey(server0, direction);
        synchronized (choices) {
            if (closed) {
                // Opening a transport now would map a server's files again, with nobody left to close them.
                throw new CreelException(ErrorCode.UNAVAILABLE, "cannot reach storage server " + server.address()
                        + ": this client's transports are closed");
            }
            Choice current = choices.get(key);
            if (current != null && current.rank() > failedRank) {
                return current;
            }
            for (int rank = failedRank + 1; rank < providers.size(); rank++) {
                int r = rank;
                BlockTransport t = opened.computeIfAbsent(new OpenKey(server0, rank),
                        k -> Optional.ofNullable(open(providers.get(r), server))).orElse(null);
                if (t != null && (direction == Direction.READ || t.supportsWrite())) {
                    Choice c = new Choice(rank, t);
                    choices.put(key, c);
                    LOG.debug("{} {} via {}", direction == Direction.WRITE ? "writing to" : "reading from",
                            server.address(), t.name());
                    return c;
                }
            }
        }
        throw new CreelException(ErrorCode.UNAVAILABLE, "no transport can "
                + (direction == Direction.WRITE ? "write to" : "read from") + " storage server " + server.address()
                + " (tier " + server.tier() + "); providers tried: "
                + (providers.isEmpty() ? "none on the class path" : providers.stream().map(BlockTransportProvider::name).toList()));
    }

    private BlockTransport open(BlockTransportProvider p, StorageServerInfo server) {
        try {
            return p.open(server, context);
        } catch (RuntimeException e) {
            LOG.debug("transport {} cannot reach {}: {}", p.name(), server.address(), e.toString());
            return null;
        }
    }

    /** Closes every transport opened; from now on no transport is chosen (UNAVAILABLE). */
    @Override
    public void close() {
        synchronized (choices) {
            closed = true;
            for (Optional<BlockTransport> o : opened.values()) {
                o.ifPresent(t -> {
                    try {
                        t.close();
                    } catch (RuntimeException e) {
                        LOG.debug("closing transport {}: {}", t.name(), e.toString());
                    }
                });
            }
            opened.clear();
            choices.clear();
        }
    }
}
