package io.creel.namenode.records;

import io.creel.common.protocol.BlockLocation;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Where the namenode writes directory records: the data of container nodes. Production code writes
 * through the data plane ({@link DataPlaneRecordStore}); namespace tests use an in-memory store.
 */
public interface RecordStore extends AutoCloseable {
    /**
     * Writes {@code record} (its remaining bytes; the store may consume it) at {@code offset} of
     * {@code block}. Must not block for long: it is called while the namespace lock is held. The
     * future fails with a {@link io.creel.common.error.CreelException}.
     */
    CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer record);

    @Override
    default void close() {
    }
}
