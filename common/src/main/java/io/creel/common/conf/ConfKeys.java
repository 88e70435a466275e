package io.creel.common.conf;

import io.creel.common.net.HostPort;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration keys every Creel process shares (the cluster's shape, client timeouts,
 * networking), and the registry of all keys: these plus those each module on the class path
 * declares through a {@link ConfKeySource} (the namenode's, the storage runtime's, each tier's).
 * {@code conf/creel-site.conf} documents every one of them; a test keeps the two in step.
 */
public final class ConfKeys {
    private static final Map<String, ConfKey<?>> ALL = new LinkedHashMap<>();

    // ---- cluster ----
    /** The namenodes, in partition order. */
    public static final ConfKey<List<HostPort>> NAMENODE_ADDRESS = key("creel.namenode.address",
            "creel://localhost:9060", ConfKeys::parseAddresses,
            "Comma-separated namenode addresses (creel://host:port), in partition order.");
    public static final ConfKey<Long> BLOCK_SIZE = key("creel.block.size", "1m", ConfKeys::parseBlockSize,
            "Size of one block; every storage server and namenode of a cluster must agree.");
    public static final ConfKey<List<String>> STORAGE_CLASSES = key("creel.storage.classes", "dram,disk",
            ConfKeys::parseClasses, "Storage classes in allocation order: a full class spills into the next.");

    // ---- client ----
    public static final ConfKey<Duration> CLIENT_CONNECT_TIMEOUT = key("creel.client.connect.timeout", "5s",
            ConfValues::parseDuration, "Time allowed to open a connection to a namenode or storage server.");
    public static final ConfKey<Duration> CLIENT_REQUEST_TIMEOUT = key("creel.client.request.timeout", "30s",
            ConfValues::parseDuration, "Time allowed for one request to be answered.");

    // ---- networking ----
    /**
     * The socket I/O under Netty's event loops (not a block transport, not an RPC transport: see the
     * glossary in docs/architecture.md). Was {@code creel.net.transport}, which still works.
     */
    public static final ConfKey<String> NET_IO = key("creel.net.io", "auto",
            v -> ConfValues.oneOf(v, "auto", "epoll", "nio"),
            "Socket I/O of the event loops: auto (native epoll where available), epoll or nio.");
    public static final ConfKey<Integer> NET_EVENT_LOOPS = key("creel.net.event.loops", "0",
            v -> ConfValues.parseInt(v, 0, 1024), "Event-loop threads per process; 0 means one per core.");
    public static final ConfKey<Long> NET_MAX_FRAME = key("creel.net.max.frame", "0",
            ConfValues::parseSize, "Largest frame accepted; 0 means block size plus 64 KiB.");

    public static final ConfKey<Duration> NET_FRAME_TIMEOUT = key("creel.net.frame.timeout", "30s",
            ConfValues::parseDuration,
            "A peer that sends part of a frame and then nothing for this long is disconnected.");
    public static final ConfKey<Duration> NET_IDLE_TIMEOUT = key("creel.net.idle.timeout", "10m",
            ConfValues::parseDuration, "A server closes a connection that has carried nothing either way for this "
                    + "long (clients reconnect on their next request); 0 means never.");
    public static final ConfKey<Integer> NET_MAX_IN_FLIGHT = key("creel.net.max.in.flight", "1024",
            v -> ConfValues.parseInt(v, 1, 1 << 20), "Requests of one connection a server handles at once; it "
                    + "reads no more from that connection until one is answered.");
    public static final ConfKey<Integer> NET_MAX_CONNECTIONS_PER_PEER = key("creel.net.max.connections.per.peer",
            "1024", v -> ConfValues.parseInt(v, 1, 1 << 20),
            "Connections a server accepts from one IP address at once; more are closed at once, with a log line.");

    /**
     * Keys that were renamed, by their old name: a setting under the old name still works, with a
     * warning (once per process) naming the new one. Never reuse an old name for another key.
     */
    private static final Map<String, ConfKey<?>> RENAMED = Map.of("creel.net.transport", NET_IO);
    /** Old names already warned about in this process. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    private static final Logger LOG = LoggerFactory.getLogger(ConfKeys.class);

    private ConfKeys() {
    }

    private static <T> ConfKey<T> key(String name, String dflt, Function<String, T> parser, String description) {
        ConfKey<T> k = new ConfKey<>(name, dflt, parser, description);
        if (ALL.put(name, k) != null) {
            throw new IllegalStateException("duplicate key " + name);
        }
        k.parse(dflt); // a default that does not parse is a bug, caught at class load
        return k;
    }

    /** All keys known here: the shared ones, then each module's, in documentation order. */
    public static Map<String, ConfKey<?>> all() {
        return Registry.ALL;
    }

    /** Renamed keys: old name to the key it is now. */
    public static Map<String, ConfKey<?>> renamed() {
        return RENAMED;
    }

    /**
     * {@code settings} with every renamed key under its new name, warning once per process for each
     * old name used. When both names are set, the new one wins (and the warning says the old one is
     * ignored).
     */
    public static Map<String, String> currentNames(Map<String, String> settings) {
        Map<String, String> out = new LinkedHashMap<>();
        settings.forEach((name, value) -> {
            if (!RENAMED.containsKey(name)) {
                out.put(name, value);
            }
        });
        settings.forEach((name, value) -> {
            ConfKey<?> now = RENAMED.get(name);
            if (now == null) {
                return;
            }
            boolean both = out.containsKey(now.name());
            if (WARNED.add(name)) {
                LOG.warn("configuration key {} is deprecated: set {} instead{}", name, now.name(),
                        both ? " (both are set: " + name + " is ignored)" : "");
            }
            out.putIfAbsent(now.name(), value);
        });
        return out;
    }

    /** The merged registry, built once on first use (after every shared key exists). */
    private static final class Registry {
        static final Map<String, ConfKey<?>> ALL = build();

        private static Map<String, ConfKey<?>> build() {
            Map<String, ConfKey<?>> all = new LinkedHashMap<>(ConfKeys.ALL);
            // The class's own loader, not the thread's: in Spark or Hadoop the context loader may
            // not be the one that loaded Creel.
            for (ConfKeySource source : ServiceLoader.load(ConfKeySource.class, ConfKeys.class.getClassLoader())) {
                for (ConfKey<?> k : source.keys()) {
                    ConfKey<?> before = all.putIfAbsent(k.name(), k);
                    if (before != null && before != k) {
                        throw new IllegalStateException("configuration key " + k.name() + " is declared twice ("
                                + source.getClass().getName() + ")");
                    }
                }
            }
            return Collections.unmodifiableMap(all);
        }
    }

    static List<HostPort> parseAddresses(String v) {
        List<String> items = ConfValues.parseList(v);
        if (items.isEmpty()) {
            throw new IllegalArgumentException("at least one namenode address is needed");
        }
        return items.stream().map(HostPort::parse).toList();
    }

    static long parseBlockSize(String v) {
        long size = ConfValues.parseSize(v);
        if (size < 4096 || size > (256L << 20) || Long.bitCount(size) != 1) {
            throw new IllegalArgumentException("block size must be a power of two between 4k and 256m: " + v);
        }
        return size;
    }

    static List<String> parseClasses(String v) {
        List<String> classes = ConfValues.parseList(v);
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("at least one storage class is needed");
        }
        if (classes.stream().distinct().count() != classes.size()) {
            throw new IllegalArgumentException("storage classes must be distinct: " + v);
        }
        for (String c : classes) {
            if (!c.matches("[a-z][a-z0-9_-]{0,31}")) {
                throw new IllegalArgumentException("storage class names are lower-case words: " + c);
            }
        }
        return classes;
    }

}
