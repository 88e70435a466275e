package io.creel.storage.local.transport;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.BlockTags;
import io.creel.storage.format.MappedRegion;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.ServerLiveness;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.BlockTransport;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Reads and writes a same-host DRAM server's blocks in its region file mapped into this process:
 * a memory copy, no round trip. Tags are checked (reads) or claimed (writes) in the shared tag table
 * exactly as the server does, so a stale location fails with STALE_BLOCK here too; and once the
 * server is not serving (its liveness words say it stopped or went silent) every transfer fails
 * UNAVAILABLE, as over TCP. Futures are complete on return.
 */
final class MappedTransport implements BlockTransport {
    private final StorageServerInfo server;
    private final MappedRegion region;
    private final MappedTagTable tagTable;
    private final BlockTags tags;
    private final ServerLiveness liveness;

    MappedTransport(StorageServerInfo server, MappedRegion region, MappedTagTable tagTable, ServerLiveness liveness) {
        this.server = server;
        this.region = region;
        this.tagTable = tagTable;
        this.tags = tagTable.tags();
        this.liveness = liveness;
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        try {
            SameHostFiles.checkServing(liveness, server);
            BlockRanges.check(server, block, offset, dst.remaining());
            tags.checkOrThrow(block.blockNumber(), block.tag(), "mapped read from " + server.address());
            dst.put(region.slice(block.blockNumber(), offset, dst.remaining()));
            tags.checkOrThrow(block.blockNumber(), block.tag(), "mapped read from " + server.address());
            return CompletableFuture.completedFuture(null);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        try {
            SameHostFiles.checkServing(liveness, server);
            BlockRanges.check(server, block, offset, src.remaining());
            tags.claimOrThrow(block.blockNumber(), block.tag(), "mapped write to " + server.address());
            region.slice(block.blockNumber(), offset, src.remaining()).put(src);
            return CompletableFuture.completedFuture(null);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public String name() {
        return "mapped";
    }

    /** Unmaps the region and the tag table; the transport must not be used afterwards. */
    @Override
    public void close() {
        region.close();
        tagTable.close();
        liveness.close();
    }
}
