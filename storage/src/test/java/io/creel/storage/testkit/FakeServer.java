package io.creel.storage.testkit;

import io.creel.common.protocol.BlockLocation;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The server side of a {@link FakeTransportProvider}'s transfers: what a transport to a pretend storage
 * server reaches. A {@link MemoryVolume} is one; a test that needs delays, counters or injected faults
 * wraps one.
 */
public interface FakeServer {
    /** Reads {@code dst.remaining()} bytes at {@code offset} of the located block into {@code dst}. */
    CompletableFuture<Void> read(BlockLocation at, int offset, ByteBuffer dst);

    /** Writes {@code src}'s remaining bytes at {@code offset} of the located block. */
    CompletableFuture<Void> write(BlockLocation at, int offset, ByteBuffer src);
}
