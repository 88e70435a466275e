package io.creel.storage.rdma;

import java.time.Duration;
import java.util.function.Function;

/**
 * Tuning of the RDMA layer. Every value has a default; {@link #from(Function)} reads the
 * {@code creel.rdma.*} keys documented in the module README.
 *
 * @param connectTimeout    how long a connect may take, address and route resolution included
 * @param operationTimeout  how long a read or write may take from the call to its completion
 * @param queueDepth        operations posted per connection at a time (more wait their turn)
 * @param completionQueueSize completion entries of the device; bounds connections x queue depth
 * @param listenBacklog     connection requests a listener queues
 */
public record RdmaSettings(Duration connectTimeout, Duration operationTimeout, int queueDepth,
        int completionQueueSize, int listenBacklog) {

    /** Key of {@link #connectTimeout()} in milliseconds. */
    public static final String CONNECT_TIMEOUT_MS = "creel.rdma.connect.timeout.ms";
    /** Key of {@link #operationTimeout()} in milliseconds. */
    public static final String OPERATION_TIMEOUT_MS = "creel.rdma.op.timeout.ms";
    /** Key of {@link #queueDepth()}. */
    public static final String QUEUE_DEPTH = "creel.rdma.queue.depth";
    /** Key of {@link #completionQueueSize()}. */
    public static final String CQ_SIZE = "creel.rdma.cq.size";
    /** Key of {@link #listenBacklog()}. */
    public static final String LISTEN_BACKLOG = "creel.rdma.listen.backlog";

    /** The largest queue depth accepted: work request ids carry the slot in 16 bits. */
    public static final int MAX_QUEUE_DEPTH = 1 << 15;

    public RdmaSettings {
        requirePositive(CONNECT_TIMEOUT_MS, connectTimeout);
        requirePositive(OPERATION_TIMEOUT_MS, operationTimeout);
        requireRange(QUEUE_DEPTH, queueDepth, 1, MAX_QUEUE_DEPTH);
        requireRange(CQ_SIZE, completionQueueSize, queueDepth, 1 << 22);
        requireRange(LISTEN_BACKLOG, listenBacklog, 1, 65535);
    }

    /** The defaults: 5 s connect, 10 s per operation, 64 in flight per connection, 4096 completions, backlog 128. */
    public static RdmaSettings defaults() {
        return new RdmaSettings(Duration.ofSeconds(5), Duration.ofSeconds(10), 64, 4096, 128);
    }

    /**
     * Reads the settings from a key lookup (a configuration, system properties); absent keys
     * (lookup returns null) keep their defaults.
     *
     * @throws IllegalArgumentException naming the key, for a value that is not a number or out of range
     */
    public static RdmaSettings from(Function<String, String> lookup) {
        RdmaSettings d = defaults();
        return new RdmaSettings(
                Duration.ofMillis(longValue(lookup, CONNECT_TIMEOUT_MS, d.connectTimeout.toMillis())),
                Duration.ofMillis(longValue(lookup, OPERATION_TIMEOUT_MS, d.operationTimeout.toMillis())),
                intValue(lookup, QUEUE_DEPTH, d.queueDepth),
                intValue(lookup, CQ_SIZE, d.completionQueueSize),
                intValue(lookup, LISTEN_BACKLOG, d.listenBacklog));
    }

    /** A copy with another operation timeout. */
    public RdmaSettings withOperationTimeout(Duration timeout) {
        return new RdmaSettings(connectTimeout, timeout, queueDepth, completionQueueSize, listenBacklog);
    }

    /** A copy with another connect timeout. */
    public RdmaSettings withConnectTimeout(Duration timeout) {
        return new RdmaSettings(timeout, operationTimeout, queueDepth, completionQueueSize, listenBacklog);
    }

    /** A copy with another queue depth (the completion queue grows to hold at least one connection). */
    public RdmaSettings withQueueDepth(int depth) {
        return new RdmaSettings(connectTimeout, operationTimeout, depth, Math.max(completionQueueSize, depth),
                listenBacklog);
    }

    private static long longValue(Function<String, String> lookup, String key, long fallback) {
        String raw = lookup.apply(key);
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        try {
            return Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, got '" + raw + "'", e);
        }
    }

    private static int intValue(Function<String, String> lookup, String key, int fallback) {
        long value = longValue(lookup, key, fallback);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + " is out of range: " + value);
        }
        return (int) value;
    }

    private static void requirePositive(String key, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + " must be positive, got " + d);
        }
    }

    private static void requireRange(String key, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + " must be between " + min + " and " + max + ", got " + value);
        }
    }
}
