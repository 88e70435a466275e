package io.creel.common.conf;

import io.creel.common.net.HostPort;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every configuration key Creel knows, with its default. {@code conf/creel-site.conf} documents
 * each of them; a test keeps the two in step.
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

    // ---- namenode ----
    public static final ConfKey<String> NAMENODE_BIND_HOST = key("creel.namenode.bind.host", "0.0.0.0",
            ConfKeys::nonEmpty, "Interface the namenode listens on (its port comes from its address).");
    public static final ConfKey<Duration> NAMENODE_REUSE_DELAY = key("creel.namenode.reuse.delay", "5s",
            ConfValues::parseDuration,
            "How long freed blocks, directory slots and replaced values wait before reuse, so in-flight readers finish.");
    public static final ConfKey<Duration> NAMENODE_SERVER_TIMEOUT = key("creel.namenode.server.timeout", "10s",
            ConfValues::parseDuration,
            "A storage server that sends no heartbeat for this long is taken out of allocation.");
    public static final ConfKey<String> NAMENODE_LOG_DIR = key("creel.namenode.log.dir", "", v -> v,
            "Directory of the namenode's operation log and checkpoints; empty means no persistence (a restart starts empty).");
    public static final ConfKey<String> NAMENODE_LOG_SYNC = key("creel.namenode.log.sync", "every",
            v -> oneOf(v, "every", "interval", "none"),
            "When log records reach the disk: every (fsync before a change is acknowledged), interval, or none (the OS decides).");
    public static final ConfKey<Duration> NAMENODE_LOG_SYNC_INTERVAL = key("creel.namenode.log.sync.interval", "100ms",
            ConfValues::parseDuration, "With creel.namenode.log.sync = interval: the longest time between fsyncs of the log.");
    public static final ConfKey<Duration> NAMENODE_CHECKPOINT_INTERVAL = key("creel.namenode.checkpoint.interval", "60s",
            ConfValues::parseDuration,
            "How often the namenode writes a full checkpoint and starts a new log segment; bounds the replay time at start.");

    public static final ConfKey<Duration> NAMENODE_REGION_IDLE = key("creel.namenode.region.idle", "30s",
            ConfValues::parseDuration,
            "A region whose blocks have all been free this long is given back to its storage server for any namenode.");

    // ---- storage server ----
    public static final ConfKey<String> STORAGE_BIND_HOST = key("creel.storage.bind.host", "0.0.0.0",
            ConfKeys::nonEmpty, "Interface a storage server listens on.");
    public static final ConfKey<Integer> STORAGE_PORT = key("creel.storage.port", "0",
            v -> ConfValues.parseInt(v, 0, 65535), "Port a storage server listens on; 0 picks a free port.");
    public static final ConfKey<String> STORAGE_ADVERTISE_HOST = key("creel.storage.advertise.host", "",
            v -> v, "Host name clients use to reach this storage server; empty means this machine's host name.");
    public static final ConfKey<String> STORAGE_CLASS = key("creel.storage.class", "", v -> v,
            "Storage class a storage server's blocks belong to; empty means the tier's name (dram, disk).");
    public static final ConfKey<Long> STORAGE_REGION_SIZE = key("creel.storage.region.size", "64m",
            ConfValues::parseSize,
            "Storage servers grant their blocks to namenodes in regions of this size (whole blocks, at least one).");
    public static final ConfKey<Duration> STORAGE_HEARTBEAT_INTERVAL = key("creel.storage.heartbeat.interval",
            "2s", ConfValues::parseDuration, "How often a storage server sends a heartbeat to each namenode.");
    public static final ConfKey<String> STORAGE_DRAM_PATH = key("creel.storage.dram.path", "/dev/shm/creel",
            ConfKeys::nonEmpty,
            "Directory holding DRAM region files; a tmpfs, so same-host clients can map them.");
    public static final ConfKey<Long> STORAGE_DRAM_SIZE = key("creel.storage.dram.size", "1g",
            ConfValues::parseSize, "Bytes a DRAM storage server exports.");
    public static final ConfKey<String> STORAGE_DISK_PATH = key("creel.storage.disk.path", "/tmp/creel-disk",
            ConfKeys::nonEmpty, "Directory holding the disk tier's data file.");
    public static final ConfKey<Long> STORAGE_DISK_SIZE = key("creel.storage.disk.size", "4g",
            ConfValues::parseSize, "Bytes a disk storage server exports.");
    public static final ConfKey<String> STORAGE_DISK_DIRECT = key("creel.storage.disk.direct", "auto",
            v -> oneOf(v, "auto", "true", "false"),
            "O_DIRECT for the disk tier: auto (use it where the filesystem allows), true (required), false.");
    public static final ConfKey<Boolean> STORAGE_PERSISTENT = key("creel.storage.persistent", "false",
            ConfValues::parseBoolean,
            "Keep a storage server's files (data, tags, token, port) when it stops and reuse them at start; one server per directory.");

    // ---- client ----
    public static final ConfKey<Duration> CLIENT_CONNECT_TIMEOUT = key("creel.client.connect.timeout", "5s",
            ConfValues::parseDuration, "Time allowed to open a connection to a namenode or storage server.");
    public static final ConfKey<Duration> CLIENT_REQUEST_TIMEOUT = key("creel.client.request.timeout", "30s",
            ConfValues::parseDuration, "Time allowed for one request to be answered.");
    public static final ConfKey<Boolean> CLIENT_LOCAL_ACCESS = key("creel.client.local.access", "true",
            ConfValues::parseBoolean,
            "Read and write blocks of same-host storage servers through their files, without a server round trip.");
    public static final ConfKey<Integer> CLIENT_BAG_READS_IN_FLIGHT = key("creel.client.bag.reads.in.flight",
            "8", v -> ConfValues.parseInt(v, 1, 1024), "Files of a Bag read concurrently by its stream.");
    public static final ConfKey<Integer> CLIENT_BUFFER_SIZE = key("creel.client.buffer.size", "1m",
            v -> (int) ConfKeys.parseBounded(v, 4096, 64L << 20),
            "Buffer size of the java.io streams.");
    public static final ConfKey<Integer> CLIENT_BLOCK_CACHE_SIZE = key("creel.client.block.cache.size",
            "65536", v -> ConfValues.parseInt(v, 16, 1 << 24),
            "Block locations a client caches, across all open files.");

    // ---- networking ----
    public static final ConfKey<String> NET_TRANSPORT = key("creel.net.transport", "auto",
            v -> oneOf(v, "auto", "epoll", "nio"), "Socket implementation: auto (epoll where available), epoll or nio.");
    public static final ConfKey<Integer> NET_EVENT_LOOPS = key("creel.net.event.loops", "0",
            v -> ConfValues.parseInt(v, 0, 1024), "Event-loop threads per process; 0 means one per core.");
    public static final ConfKey<Long> NET_MAX_FRAME = key("creel.net.max.frame", "0",
            ConfValues::parseSize, "Largest frame accepted; 0 means block size plus 64 KiB.");

    public static final ConfKey<Duration> NET_FRAME_TIMEOUT = key("creel.net.frame.timeout", "30s",
            ConfValues::parseDuration,
            "A peer that sends part of a frame and then nothing for this long is disconnected.");

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

    /** All keys, in documentation order. */
    public static Map<String, ConfKey<?>> all() {
        return Collections.unmodifiableMap(ALL);
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

    static long parseBounded(String v, long min, long max) {
        long size = ConfValues.parseSize(v);
        if (size < min || size > max) {
            throw new IllegalArgumentException("must be between " + ConfValues.formatSize(min) + " and "
                    + ConfValues.formatSize(max) + ": " + v);
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

    static String nonEmpty(String v) {
        if (v.isEmpty()) {
            throw new IllegalArgumentException("must not be empty");
        }
        return v;
    }

    static String oneOf(String v, String... allowed) {
        for (String a : allowed) {
            if (a.equals(v)) {
                return v;
            }
        }
        throw new IllegalArgumentException("must be one of " + String.join(", ", allowed) + ": " + v);
    }
}
