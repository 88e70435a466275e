package io.creel.storage.local.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.BlockTags;
import io.creel.storage.format.MappedRegion;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.MappingUsers;
import io.creel.storage.format.ServerLiveness;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.BlockTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes a same-host DRAM server's blocks in its region file, without a round trip: a
 * memory copy through the region mapped into this process, or for a large transfer into a block this
 * process has not mapped in yet, a pread/pwrite of the file (see {@link MappedInBlocks} for why).
 * Tags are checked (reads) or claimed (writes) in the shared tag table exactly as the server does,
 * so a stale location fails with STALE_BLOCK here too; and once the server is not serving (its
 * liveness words say it stopped or went silent) every transfer fails UNAVAILABLE, as over TCP.
 * Futures are complete on return.
 */
final class MappedTransport implements BlockTransport {
    private static final Logger LOG = LoggerFactory.getLogger(MappedTransport.class);

    /**
     * Transfers at least this long into a block not mapped in go through the file: below it, the few
     * page faults of copying through the mapping cost less than the system call.
     */
    static final int FILE_COPY_MIN = 64 << 10;

    private final StorageServerInfo server;
    private final MappedRegion region;
    private final PositionalFile file;
    private final long dataOffset;
    private final MappedInBlocks mappedIn;
    private final MappedTagTable tagTable;
    private final BlockTags tags;
    private final ServerLiveness liveness;
    /** Keeps the mappings until no transfer is inside them; see {@link MappingUsers}. */
    private final MappingUsers users = new MappingUsers(this::release);

    MappedTransport(StorageServerInfo server, MappedRegion region, PositionalFile file, long dataOffset,
                    MappedTagTable tagTable, ServerLiveness liveness) {
        this.server = server;
        this.region = region;
        this.file = file;
        this.dataOffset = dataOffset;
        this.mappedIn = new MappedInBlocks(server.blockCount());
        this.tagTable = tagTable;
        this.tags = tagTable.tags();
        this.liveness = liveness;
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        if (!users.enter()) {
            return closed("read", block);
        }
        try {
            SameHostFiles.checkServing(liveness, server);
            BlockRanges.check(server, block, offset, dst.remaining());
            long b = block.blockNumber();
            tags.checkOrThrow(b, block.tag(), "mapped read from " + server.address());
            if (throughMapping(b, dst)) {
                dst.put(region.slice(b, offset, dst.remaining()));
            } else {
                int start = dst.position();
                try {
                    file.readFully(dst, position(b, offset));
                } catch (IOException e) {
                    LOG.debug("reading {} failed ({}); copying through the mapping", file.path(), e.toString());
                    dst.position(start);
                    dst.put(region.slice(b, offset, dst.remaining()));
                }
            }
            tags.checkOrThrow(b, block.tag(), "mapped read from " + server.address());
            return CompletableFuture.completedFuture(null);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            users.exit();
        }
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        if (!users.enter()) {
            return closed("write", block);
        }
        try {
            SameHostFiles.checkServing(liveness, server);
            BlockRanges.check(server, block, offset, src.remaining());
            long b = block.blockNumber();
            tags.claimOrThrow(b, block.tag(), "mapped write to " + server.address());
            if (throughMapping(b, src)) {
                region.slice(b, offset, src.remaining()).put(src);
            } else {
                int start = src.position();
                try {
                    file.writeFully(src, position(b, offset));
                } catch (IOException e) {
                    LOG.debug("writing {} failed ({}); copying through the mapping", file.path(), e.toString());
                    src.position(start);
                    region.slice(b, offset, src.remaining()).put(src);
                }
            }
            return CompletableFuture.completedFuture(null);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            users.exit();
        }
    }

    /**
     * Whether to copy through the mapping: the block is mapped in (or this is its second use, so it
     * is mapped in now), or the transfer is small, or the caller's buffer is on the heap (a file copy
     * would stage it through a direct buffer first).
     */
    private boolean throughMapping(long block, ByteBuffer buffer) {
        if (mappedIn.isMappedIn(block)) {
            return true;
        }
        if (buffer.remaining() < FILE_COPY_MIN || !buffer.isDirect()) {
            return true;
        }
        if (mappedIn.usedAgain(block)) {
            region.mapIn(block);
            mappedIn.mappedIn(block);
            return true;
        }
        return false;
    }

    private long position(long block, int offset) {
        return dataOffset + block * region.blockSize() + offset;
    }

    @Override
    public String name() {
        return "mapped";
    }

    private CompletableFuture<Void> closed(String what, BlockLocation block) {
        return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "mapped " + what + " of block "
                + block.blockNumber() + " on " + server.address() + " refused: the transport is closed"));
    }

    /**
     * Refuses transfers from now on; unmaps the region and the tag table and closes the file once the
     * transfers running now have finished (at once if none is).
     */
    @Override
    public void close() {
        users.close();
    }

    private void release() {
        region.close();
        try {
            file.close();
        } catch (IOException e) {
            LOG.debug("closing {} failed: {}", file.path(), e.toString());
        }
        tagTable.close();
        liveness.close();
    }
}
