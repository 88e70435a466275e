package io.creel.storage.rdma.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.BlockTags;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.BlockTransport;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * Reads and writes one storage server's blocks with one-sided RDMA, through a registered buffer of
 * the pool and the server's shared {@link Endpoint}. The server's CPU takes no part; the stale-block
 * guarantee is kept by the client, with the same steps the server takes over TCP:
 *
 * <ul>
 *   <li><b>read</b>: READ the block's tag word, READ the data (fenced: after the tag read completed),
 *       READ the tag word again (fenced: after the data), all posted at once; the bytes count only
 *       if both tag reads saw the location's tag. Tags only grow, so the block belonged to this
 *       allocation the whole time its bytes were read; otherwise STALE_BLOCK, worded as the server
 *       words it.</li>
 *   <li><b>write</b>: claim the tag word with compare-and-swap (it becomes the location's tag unless
 *       a newer allocation holds it: then STALE_BLOCK), WRITE the data, then READ the tag word on the
 *       same connection. Reliable-connection ordering makes that read wait for the write, so when it
 *       completes the bytes are placed in the server's memory, and only then is the write
 *       acknowledged; if the tag changed meanwhile, a newer allocation took the block and the write
 *       fails STALE_BLOCK.</li>
 * </ul>
 *
 * A transfer larger than a pool buffer moves in buffer-sized pieces, one after the other, between
 * the same tag steps. Failures of the RDMA path are never errors about the data
 * ({@link RdmaFailures}), so the client falls back to the next transport.
 */
final class RdmaTransport implements BlockTransport {
    /** Compare-and-swap attempts of one claim; each failed one means another writer moved the tag. */
    static final int MAX_CLAIM_ATTEMPTS = 16;

    private static final int TAG_BEFORE = 0;
    private static final int TAG_AFTER = 1;
    private static final int CLAIM = 2;

    private final StorageServerInfo server;
    private final RdmaExportLayout layout;
    private final Endpoint endpoint;
    private final RdmaClientRuntime runtime;
    private final boolean writable;
    private boolean closed;

    RdmaTransport(StorageServerInfo server, RdmaExportLayout layout, Endpoint endpoint, RdmaClientRuntime runtime) {
        this.server = server;
        this.layout = layout;
        this.endpoint = endpoint;
        this.runtime = runtime;
        this.writable = layout.probe() != null && layout.atomics().available() && runtime.deviceHasAtomics();
    }

    @Override
    public String name() {
        return "rdma";
    }

    /** Writes claim tags with compare-and-swap: both devices need atomics. */
    @Override
    public boolean supportsWrite() {
        return writable;
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        int length = dst.remaining();
        try {
            BlockRanges.check(server, block, offset, length);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        String what = "rdma read of block " + block.blockNumber() + " from storage server " + server.address() + " ("
                + layout.endpoint() + ")";
        return transfer(what, (link, slot) -> read(link.connection(), slot, block, offset, dst));
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        int length = src.remaining();
        try {
            BlockRanges.check(server, block, offset, length);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        String what = "rdma write of block " + block.blockNumber() + " to storage server " + server.address() + " ("
                + layout.endpoint() + ")";
        if (!writable) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, what
                    + " refused: writes need atomic operations on both RDMA devices"));
        }
        return transfer(what, (link, slot) -> {
            if (!link.writable()) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, what + " refused: "
                        + link.notWritable()));
            }
            return write(link.connection(), slot, block, offset, src);
        });
    }

    /** Connects (or reuses the connection), takes a buffer, runs {@code steps}, gives the buffer back. */
    private CompletableFuture<Void> transfer(String what,
                                             BiFunction<Endpoint.Link, BufferPool.Slot, CompletableFuture<Void>> steps) {
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, what
                        + " refused: the transport is closed"));
            }
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        endpoint.link().thenCompose(link -> runtime.pool().acquire().thenCompose(slot -> {
            CompletableFuture<Void> moved;
            try {
                moved = steps.apply(link, slot);
            } catch (RuntimeException e) {
                moved = CompletableFuture.failedFuture(e);
            }
            // Every operation of the steps has completed (or its connection was torn down first) when
            // this runs: the buffer is nobody's but ours again.
            return moved.whenComplete((v, t) -> slot.release());
        })).whenComplete((v, t) -> {
            if (t == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(RdmaFailures.of(t, what));
            }
        });
        return done;
    }

    private CompletableFuture<Void> read(RdmaConnection c, BufferPool.Slot slot, BlockLocation block, int offset,
                                         ByteBuffer dst) {
        RegisteredMemory mem = slot.memory();
        long b = block.blockNumber();
        long tagAt = RdmaExportLayout.tagOffset(b);
        int length = dst.remaining();
        CompletableFuture<Void> before = c.read(mem, slot.wordOffset(TAG_BEFORE), layout.tags(), tagAt, 8);
        if (length == 0) {
            return before.thenRun(() -> checkTag(slot, TAG_BEFORE, block, "rdma read from "));
        }
        int first = Math.min(length, runtime.pool().size());
        RemoteRegion segment = layout.segmentOf(b);
        long at = layout.offsetInSegment(b, server.blockSize(), offset);
        CompletableFuture<Void> data = c.readFenced(mem, slot.dataOffset(), segment, at, first);
        if (first == length) {
            CompletableFuture<Void> after = c.readFenced(mem, slot.wordOffset(TAG_AFTER), layout.tags(), tagAt, 8);
            return CompletableFuture.allOf(before, data, after).thenRun(() -> {
                checkTag(slot, TAG_BEFORE, block, "rdma read from ");
                checkTag(slot, TAG_AFTER, block, "rdma read from ");
                slot.copyTo(dst, 0, length);
            });
        }
        // Larger than a buffer: the rest moves piece by piece after the first, each copied out before
        // the buffer is reused, then the closing tag read.
        return CompletableFuture.allOf(before, data).thenCompose(v -> {
            checkTag(slot, TAG_BEFORE, block, "rdma read from ");
            slot.copyTo(dst, 0, first);
            return readRest(c, slot, segment, at, first, dst);
        }).thenCompose(v -> c.readFenced(mem, slot.wordOffset(TAG_AFTER), layout.tags(), tagAt, 8))
                .thenRun(() -> checkTag(slot, TAG_AFTER, block, "rdma read from "));
    }

    private CompletableFuture<Void> readRest(RdmaConnection c, BufferPool.Slot slot, RemoteRegion segment, long at,
                                             int done, ByteBuffer dst) {
        if (!dst.hasRemaining()) {
            return CompletableFuture.completedFuture(null);
        }
        int n = Math.min(dst.remaining(), runtime.pool().size());
        return c.readFenced(slot.memory(), slot.dataOffset(), segment, at + done, n).thenCompose(v -> {
            slot.copyTo(dst, 0, n);
            return readRest(c, slot, segment, at, done + n, dst);
        });
    }

    private CompletableFuture<Void> write(RdmaConnection c, BufferPool.Slot slot, BlockLocation block, int offset,
                                          ByteBuffer src) {
        long b = block.blockNumber();
        int length = src.remaining();
        RemoteRegion segment = layout.segmentOf(b);
        long at = layout.offsetInSegment(b, server.blockSize(), offset);
        return claim(c, slot, block, block.tag(), 1).thenCompose(v -> {
            if (length == 0) {
                return CompletableFuture.completedFuture(null);
            }
            return writeFrom(c, slot, block, segment, at, src, 0, length);
        }).thenRun(() -> src.position(src.position() + length));
    }

    /**
     * Writes bytes {@code done..length} of {@code src} one buffer at a time; the last piece is
     * followed by the placement read of the tag word.
     */
    private CompletableFuture<Void> writeFrom(RdmaConnection c, BufferPool.Slot slot, BlockLocation block,
                                              RemoteRegion segment, long at, ByteBuffer src, int done, int length) {
        int n = Math.min(length - done, runtime.pool().size());
        slot.copyFrom(src, done, n);
        CompletableFuture<Void> written = c.write(slot.memory(), slot.dataOffset(), segment, at + done, n);
        if (done + n < length) {
            return written.thenCompose(v -> writeFrom(c, slot, block, segment, at, src, done + n, length));
        }
        // Posted right behind the write on the same connection: completes only once the write is placed.
        CompletableFuture<Void> placed = c.read(slot.memory(), slot.wordOffset(TAG_AFTER), layout.tags(),
                RdmaExportLayout.tagOffset(block.blockNumber()), 8);
        return CompletableFuture.allOf(written, placed)
                .thenRun(() -> checkTag(slot, TAG_AFTER, block, "rdma write to "));
    }

    /**
     * Makes the block's tag {@code tag} unless a newer allocation owns it. The first attempt expects
     * the tag itself (a block this allocation claimed before: one round trip); a miss returns the
     * current tag, which the next attempt expects, as long as it is older.
     */
    private CompletableFuture<Void> claim(RdmaConnection c, BufferPool.Slot slot, BlockLocation block, long expected,
                                          int attempt) {
        long tag = block.tag();
        return c.compareAndSwap(slot.memory(), slot.wordOffset(CLAIM), layout.tags(),
                RdmaExportLayout.tagOffset(block.blockNumber()), expected, tag, false).thenCompose(v -> {
                    long previous = slot.word(CLAIM);
                    if (previous == expected || previous == tag) {
                        return CompletableFuture.completedFuture(null);
                    }
                    if (Long.compareUnsigned(previous, tag) > 0) {
                        throw BlockTags.staleBlock(block.blockNumber(), tag, previous, "rdma write to " + server.address());
                    }
                    if (attempt >= MAX_CLAIM_ATTEMPTS) {
                        throw new CreelException(ErrorCode.UNAVAILABLE, "rdma write to " + server.address()
                                + ": block " + block.blockNumber() + ": the tag kept changing under " + attempt
                                + " claims (tag " + Long.toUnsignedString(tag) + ", last seen "
                                + Long.toUnsignedString(previous) + ")");
                    }
                    return claim(c, slot, block, previous, attempt + 1);
                });
    }

    /** Fails STALE_BLOCK unless tag word {@code word} of the slot holds the location's tag. */
    private void checkTag(BufferPool.Slot slot, int word, BlockLocation block, String how) {
        long now = slot.word(word, layout.tagOrder());
        if (now != block.tag()) {
            throw BlockTags.staleBlock(block.blockNumber(), block.tag(), now, how + server.address());
        }
    }

    /** The endpoint and buffers are shared: closing gives this transport's share back. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        runtime.release();
    }
}
