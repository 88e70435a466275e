package io.creel.bench.baseline;

import io.creel.bench.Progress;
import io.creel.bench.stats.Summary;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Redis as the peer of a run: a private {@link RedisServer} (its own process, as Redis always
 * is) and the load that drives it from the bench's JVM, as Creel's clients are driven. Values of
 * one size at a time are preloaded under {@value #KEYS} keys.
 */
public final class RedisPeer implements AutoCloseable {
    /** Keys the loads pick from at random. */
    public static final int KEYS = 10_000;

    private final RedisServer server;
    private final RedisLoad load;
    private final String version;
    private int preloadedSize = -1;

    private RedisPeer(RedisServer server, RedisLoad load, String version) {
        this.server = server;
        this.load = load;
        this.version = version;
    }

    /** Starts {@code executable} on a free loopback port. */
    public static RedisPeer start(Path executable, Progress progress) throws IOException {
        String version = RedisServer.version(executable);
        RedisServer server = RedisServer.start(executable);
        return new RedisPeer(server, new RedisLoad(server.port(), progress), version);
    }

    /** The server's version line, e.g. "Redis server v=7.0.15 ...". */
    public String version() {
        return version;
    }

    /** GETs of random keys holding {@code valueSize}-byte values, {@code clients} × {@code inFlight}. */
    public synchronized Summary get(String label, int clients, int inFlight, int valueSize, Duration duration) {
        preload(valueSize);
        return load.run(label, false, clients, inFlight, KEYS, valueSize, duration);
    }

    /** SETs of random keys to {@code valueSize}-byte values, {@code clients} × {@code inFlight}. */
    public synchronized Summary set(String label, int clients, int inFlight, int valueSize, Duration duration) {
        preload(valueSize);
        return load.run(label, true, clients, inFlight, KEYS, valueSize, duration);
    }

    private void preload(int valueSize) {
        if (preloadedSize == valueSize) {
            return;
        }
        try {
            load.preload(KEYS, valueSize);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.UNAVAILABLE, "preloading Redis (port " + server.port() + ") with "
                    + KEYS + " values of " + valueSize + " bytes failed: " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new CreelException(ErrorCode.UNAVAILABLE, "preloading Redis failed: " + e.getMessage(), e);
        }
        preloadedSize = valueSize;
    }

    @Override
    public void close() {
        server.close();
    }
}
