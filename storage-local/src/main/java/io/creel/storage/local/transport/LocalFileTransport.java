package io.creel.storage.local.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.BlockTags;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.MappingUsers;
import io.creel.storage.format.ServerLiveness;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.BlockTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a same-host "disk" server's blocks straight from its data file with positional reads,
 * checking the shared tag table before and after, and the server's liveness words before (a stopped
 * or silent server fails the read UNAVAILABLE, as over TCP). Read-only: writes go to the server, which handles
 * O_DIRECT alignment and is the one place where read-modify-write is serialised.
 */
final class LocalFileTransport implements BlockTransport {
    private static final Logger LOG = LoggerFactory.getLogger(LocalFileTransport.class);

    private final StorageServerInfo server;
    private final SameHostFiles files;
    private final FileChannel data;
    private final MappedTagTable tagTable;
    private final BlockTags tags;
    private final ServerLiveness liveness;
    /** Keeps the mappings and the file until no read is inside them; see {@link MappingUsers}. */
    private final MappingUsers users = new MappingUsers(this::release);

    LocalFileTransport(StorageServerInfo server, SameHostFiles files, FileChannel data, MappedTagTable tagTable,
                       ServerLiveness liveness) {
        this.server = server;
        this.files = files;
        this.data = data;
        this.tagTable = tagTable;
        this.tags = tagTable.tags();
        this.liveness = liveness;
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        if (!users.enter()) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "local-file read of block "
                    + block.blockNumber() + " on " + server.address() + " refused: the transport is closed"));
        }
        try {
            SameHostFiles.checkServing(liveness, server);
            BlockRanges.check(server, block, offset, dst.remaining());
            String where = "local-file read from " + server.address();
            tags.checkOrThrow(block.blockNumber(), block.tag(), where);
            long pos = files.dataOffset() + block.blockNumber() * server.blockSize() + offset;
            while (dst.hasRemaining()) {
                int n = data.read(dst, pos);
                if (n < 0) {
                    throw new CreelException(ErrorCode.INTERNAL, files.dataPath() + " ends before byte " + pos);
                }
                pos += n;
            }
            tags.checkOrThrow(block.blockNumber(), block.tag(), where);
            return CompletableFuture.completedFuture(null);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.INTERNAL, "reading "
                    + files.dataPath() + " of " + server.address() + " failed: " + e, e));
        } finally {
            users.exit();
        }
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNSUPPORTED,
                "the local-file transport only reads; write block " + block.blockNumber() + " through the server"));
    }

    @Override
    public boolean supportsWrite() {
        return false;
    }

    @Override
    public String name() {
        return "local-file";
    }

    /** Refuses reads from now on; unmaps and closes once the reads running now have finished. */
    @Override
    public void close() {
        users.close();
    }

    private void release() {
        tagTable.close();
        liveness.close();
        try {
            data.close();
        } catch (IOException e) {
            LOG.debug("closing {} failed: {}", files.dataPath(), e.toString());
        }
    }
}
