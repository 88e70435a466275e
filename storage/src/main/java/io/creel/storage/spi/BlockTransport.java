package io.creel.storage.spi;

import io.creel.common.protocol.BlockLocation;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A client's way of moving bytes to and from the blocks of one storage server.
 *
 * <p>Buffer ownership: the caller ({@link io.creel.storage.transport.BlockTransfers}) hands the
 * transport a slice of its own buffer, to consume until the future completes: on success the slice's
 * position has advanced by the bytes moved; on failure the slice is discarded, whatever it holds, so
 * a transport never restores a position. Futures fail with a
 * {@link io.creel.common.error.CreelException}.
 */
public interface BlockTransport extends AutoCloseable {
    /** Reads {@code dst.remaining()} bytes at {@code offset} of the block into {@code dst}. */
    CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst);

    /** Writes {@code src.remaining()} bytes from {@code src} at {@code offset} of the block. */
    CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src);

    /** Whether {@link #write} is supported; a read-only transport leaves writes to a costlier one. */
    default boolean supportsWrite() {
        return true;
    }

    /** The transport's name for logs and tests ("tcp", "mapped", "local-file"). */
    String name();

    @Override
    void close();
}
