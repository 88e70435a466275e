package io.creel.storage.testkit;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.BlockLocation;
import io.creel.storage.spi.Volume;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * What a storage server's request handler does with a block transfer, over any {@link Volume}: a
 * read is served only while the location's tag is the block's, before and after the copy (a block
 * reused meanwhile is never returned); a write first claims the block for its tag (an older
 * allocation is refused). Fakes that stand for a server use this rather than a tag rule of their own.
 */
public final class ServerRule {
    private ServerRule() {
    }

    /** Reads {@code dst.remaining()} bytes at {@code offset} of the located block, as a server does. */
    public static void read(Volume volume, BlockLocation at, int offset, ByteBuffer dst, String where)
            throws IOException {
        volume.tags().checkOrThrow(at.blockNumber(), at.tag(), where);
        volume.medium().read(at.blockNumber(), offset, dst);
        volume.tags().checkOrThrow(at.blockNumber(), at.tag(), where);
    }

    /** Writes {@code src}'s remaining bytes at {@code offset} of the located block, as a server does. */
    public static void write(Volume volume, BlockLocation at, int offset, ByteBuffer src, String where)
            throws IOException {
        volume.tags().claimOrThrow(at.blockNumber(), at.tag(), where);
        volume.medium().write(at.blockNumber(), offset, src);
    }

    /**
     * A {@link FakeServer} serving {@code volume} under the rule, its failures (a stale location, a
     * failing medium) as failed futures, as a server's reply would be; {@code name} names it in errors.
     */
    public static FakeServer serving(Volume volume, String name) {
        return new FakeServer() {
            @Override
            public CompletableFuture<Void> read(BlockLocation at, int offset, ByteBuffer dst) {
                try {
                    ServerRule.read(volume, at, offset, dst, name + " read");
                    return CompletableFuture.completedFuture(null);
                } catch (IOException | CreelException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }

            @Override
            public CompletableFuture<Void> write(BlockLocation at, int offset, ByteBuffer src) {
                try {
                    ServerRule.write(volume, at, offset, src, name + " write");
                    return CompletableFuture.completedFuture(null);
                } catch (IOException | CreelException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
        };
    }
}
