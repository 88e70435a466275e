package io.creel.client;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.util.List;

/**
 * The client library's own keys: stream buffers, read-ahead, Bag reads in flight, the block-location cache, retries of namenode requests,
 * the session heartbeat that keeps expiring nodes. (Connect and request timeouts are shared keys in ConfKeys.)
 * Registered as a {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class ClientKeys implements ConfKeySource {
    public static final ConfKey<Integer> BAG_READS_IN_FLIGHT = ConfKey.of("creel.client.bag.reads.in.flight",
            "8", v -> ConfValues.parseInt(v, 1, 1024), "Files of a Bag read concurrently by its stream.");
    public static final ConfKey<Integer> BUFFER_SIZE = ConfKey.of("creel.client.buffer.size", "1m",
            v -> (int) ConfValues.parseBounded(v, 4096, 64L << 20),
            "Buffer size of the java.io streams.");
    public static final ConfKey<Integer> READ_AHEAD = ConfKey.of("creel.client.read.ahead", "4m",
            v -> (int) ConfValues.parseBounded(v, 0, 256L << 20),
            "Bytes a direct reader fetches ahead of small sequential reads from a server a round trip away; 0 for none.");
    public static final ConfKey<Integer> BLOCK_CACHE_SIZE = ConfKey.of("creel.client.block.cache.size",
            "65536", v -> ConfValues.parseInt(v, 16, 1 << 24),
            "Block locations a client caches, across all open files.");
    public static final ConfKey<Integer> RETRY_ATTEMPTS = ConfKey.of("creel.client.retry.attempts", "10",
            v -> ConfValues.parseInt(v, 1, 1000),
            "Times a namenode request is sent at most when its connection breaks or cannot be made (a restart); "
                    + "a retry is answered, never applied twice, as each change carries an id.");
    public static final ConfKey<java.time.Duration> RETRY_DEADLINE = ConfKey.of("creel.client.retry.deadline", "10s",
            ConfValues::parseDuration,
            "No attempt of a namenode request starts later than this after the first: a namenode restart within it "
                    + "goes unnoticed, a dead namenode fails requests after it; keep it below creel.namenode.retry.cache.expiry.");
    public static final ConfKey<Integer> REPLICATION = ConfKey.of("creel.client.replication", "0",
            v -> ConfValues.parseInt(v, 0, io.creel.common.protocol.BlockLocation.MAX_COPIES),
            "Copies of each block of the Files and KeyValues this client creates (on storage servers of different "
                    + "hosts), where the create does not say; 0 inherits from the parent directory, else the storage "
                    + "class's factor (creel.namenode.replication).");
    public static final ConfKey<java.time.Duration> SESSION_HEARTBEAT = ConfKey.of("creel.client.session.heartbeat",
            "3s", ClientKeys::parseHeartbeat,
            "How often a client that owns expiring nodes (or was asked for its session id) tells every namenode it is "
                    + "alive; keep it well below creel.namenode.session.timeout and any time to live.");

    /** At least 10 ms: the heartbeat is a timer task, and a busier one would only load the namenodes. */
    private static java.time.Duration parseHeartbeat(String v) {
        java.time.Duration d = ConfValues.parseDuration(v);
        if (d.toMillis() < 10) {
            throw new IllegalArgumentException("must be at least 10ms: " + v);
        }
        return d;
    }

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public ClientKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(BAG_READS_IN_FLIGHT, BUFFER_SIZE, READ_AHEAD, BLOCK_CACHE_SIZE, RETRY_ATTEMPTS, RETRY_DEADLINE,
                REPLICATION, SESSION_HEARTBEAT);
    }
}
