package io.creel.namenode.testing;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A test transport for storage servers of tier "memory": blocks live in {@link MemoryBlocks#SHARED}. */
public final class MemoryTransportProvider implements BlockTransportProvider {
    @Override
    public String name() {
        return "memory";
    }

    @Override
    public int cost() {
        return 1;
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        if (!server.tier().equals("memory")) {
            return null;
        }
        return new BlockTransport() {
            @Override
            public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
                throw new UnsupportedOperationException("the namenode only writes records");
            }

            @Override
            public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
                return MemoryBlocks.SHARED.write(block, offset, src);
            }

            @Override
            public String name() {
                return "memory";
            }

            @Override
            public void close() {
            }
        };
    }
}
