package io.creel.namenode;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.time.Duration;
import java.util.List;

/**
 * The namenode's configuration keys: where it listens, how long freed space waits, when servers count as dead, persistence,
 * when expiring nodes' owners count as gone.
 * Registered as a {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class NamenodeKeys implements ConfKeySource {
    public static final ConfKey<String> BIND_HOST = ConfKey.of("creel.namenode.bind.host", "0.0.0.0",
            ConfValues::nonEmpty, "Interface the namenode listens on (its port comes from its address).");
    public static final ConfKey<Duration> REUSE_DELAY = ConfKey.of("creel.namenode.reuse.delay", "5s",
            ConfValues::parseDuration,
            "How long freed blocks, directory slots and replaced values wait before reuse, so in-flight readers finish.");
    public static final ConfKey<Duration> SERVER_TIMEOUT = ConfKey.of("creel.namenode.server.timeout", "10s",
            ConfValues::parseDuration,
            "A storage server that sends no heartbeat for this long is taken out of allocation.");
    public static final ConfKey<String> LOG_DIR = ConfKey.of("creel.namenode.log.dir", "", v -> v,
            "Directory of the namenode's operation log and checkpoints; empty means no persistence (a restart starts empty).");
    public static final ConfKey<String> LOG_SYNC = ConfKey.of("creel.namenode.log.sync", "every",
            v -> ConfValues.oneOf(v, "every", "interval", "none"),
            "When log records reach the disk: every (fsync before a change is acknowledged), interval, or none (the OS decides).");
    public static final ConfKey<Duration> LOG_SYNC_INTERVAL = ConfKey.of("creel.namenode.log.sync.interval", "100ms",
            ConfValues::parseDuration, "With creel.namenode.log.sync = interval: the longest time between fsyncs of the log.");
    public static final ConfKey<Duration> CHECKPOINT_INTERVAL = ConfKey.of("creel.namenode.checkpoint.interval", "60s",
            ConfValues::parseDuration,
            "How often the namenode writes a full checkpoint and starts a new log segment; bounds the replay time at start.");
    public static final ConfKey<Long> INLINE_MAX = ConfKey.of("creel.namenode.inline.max", "4k",
            ConfValues::parseSize,
            "Files and KeyValues of at most this many bytes keep them in the namenode instead of in a block "
                    + "(one request to put or get, no data transfer); 0 turns this off; at most 64k and the block size.");
    public static final ConfKey<Long> FIRST_BLOCK_SIZE = ConfKey.of("creel.namenode.first.block.size", "64k",
            ConfValues::parseSize,
            "Files and KeyValues that do not say how large they will be get a first block of the smallest size class "
                    + "(storage servers with a smaller creel.storage.block.size) of at least this many bytes; those that "
                    + "say get one that fits. Later blocks are whole. 0 turns size classes off.");
    public static final ConfKey<Duration> REGION_IDLE = ConfKey.of("creel.namenode.region.idle", "30s",
            ConfValues::parseDuration,
            "A region whose blocks have all been free this long is given back to its storage server for any namenode.");
    public static final ConfKey<Integer> RETRY_CACHE_SIZE = ConfKey.of("creel.namenode.retry.cache.size", "100000",
            v -> ConfValues.parseInt(v, 1, 1 << 26),
            "Answers to clients' mutating requests the namenode keeps, so a retry after a lost connection or a restart "
                    + "gets the first answer instead of being applied twice (the oldest go first).");
    public static final ConfKey<Duration> RETRY_CACHE_EXPIRY = ConfKey.of("creel.namenode.retry.cache.expiry", "5m",
            ConfValues::parseDuration,
            "How long the namenode keeps the answer to a client's mutating request; clients must finish retrying "
                    + "within it (creel.client.retry.deadline is shorter).");
    public static final ConfKey<Duration> RETRY_LEASE_HOLD = ConfKey.of("creel.namenode.retry.lease.hold", "10s",
            ConfValues::parseDuration,
            "How long the write leases of a client outlive its last connection, so it can reconnect and go on writing "
                    + "(its requests carry ids); other writers of those Files wait this long after it is gone.");
    public static final ConfKey<Integer> REPLICATION = ConfKey.of("creel.namenode.replication", "1",
            v -> ConfValues.parseInt(v, 1, io.creel.common.protocol.BlockLocation.MAX_COPIES),
            "Copies of each block of a File or KeyValue that neither the node nor an ancestor sets a factor for, each on a "
                    + "storage server of another host; a write completes once every copy holds it.");
    public static final ConfKey<String> REPLICATION_CLASSES = ConfKey.of("creel.namenode.replication.classes", "",
            v -> v, "Factors per storage class that differ from creel.namenode.replication, as class=copies pairs "
                    + "separated by commas (e.g. dram=2,disk=1).");
    public static final ConfKey<Long> REPLICATION_BANDWIDTH = ConfKey.of("creel.namenode.replication.bandwidth", "64m",
            v -> ConfValues.parseBounded(v, 1L << 16, 1L << 40),
            "Bytes per second this namenode copies, in all, to restore the replication factor of blocks that lost a "
                    + "copy (a dead or decommissioned server), so repairs never starve clients.");
    public static final ConfKey<Duration> SESSION_TIMEOUT = ConfKey.of("creel.namenode.session.timeout", "30s",
            NamenodeKeys::parseSessionTimeout,
            "A node bound to its creator's session (Spark's application directories, for instance) is removed with "
                    + "everything below it once its owning client has not been heard for this long (it heartbeats "
                    + "every creel.client.session.heartbeat); a restarted namenode gives every owner this long again.");

    public static final ConfKey<Integer> PERMISSIONS_UMASK = ConfKey.of("creel.namenode.permissions.umask", "022",
            v -> io.creel.common.protocol.NodeAccess.parseMode(v.trim()),
            "With a cluster secret the namenode enforces node permissions: a new node's mode is its parent's less "
                    + "these bits (octal, as a Unix umask; its owner may always read and write it).");

    /** A duration of at least 100 ms: a shorter one would remove live clients' nodes between two heartbeats. */
    private static Duration parseSessionTimeout(String v) {
        Duration d = ConfValues.parseDuration(v);
        if (d.toMillis() < 100) {
            throw new IllegalArgumentException("must be at least 100ms: " + v);
        }
        return d;
    }

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public NamenodeKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(BIND_HOST, REUSE_DELAY, SERVER_TIMEOUT, LOG_DIR, LOG_SYNC, LOG_SYNC_INTERVAL, CHECKPOINT_INTERVAL, REGION_IDLE,
                INLINE_MAX, FIRST_BLOCK_SIZE, RETRY_CACHE_SIZE, RETRY_CACHE_EXPIRY, RETRY_LEASE_HOLD, REPLICATION, REPLICATION_CLASSES,
                REPLICATION_BANDWIDTH, SESSION_TIMEOUT, PERMISSIONS_UMASK);
    }
}
