package io.creel.client.block;

import io.creel.client.Futures;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Moves byte ranges of a node's data: splits a range at block boundaries, finds each block's
 * location (cache, else MAP), and hands the pieces to the block's transport, all pieces at once.
 *
 * <p>Lookups overlap transfers: when the transfer of block i starts and the node extends beyond
 * it, the location of block i+1 is requested right away, so a sequential reader finds it ready.
 */
public final class BlockIo {
    private final NamenodeRouter router;
    private final BlockLocationCache cache;
    private final Transports transports;
    private final long blockSize;

    public BlockIo(NamenodeRouter router, BlockLocationCache cache, Transports transports, long blockSize) {
        this.router = router;
        this.cache = cache;
        this.transports = transports;
        this.blockSize = blockSize;
    }

    public long blockSize() {
        return blockSize;
    }

    public BlockLocationCache cache() {
        return cache;
    }

    public Transports transports() {
        return transports;
    }

    /** The location of an existing block (MAP without a lease, so nothing is allocated). */
    public CompletableFuture<BlockLocation> locate(NodeRef node, long index) {
        return cache.get(node.block(index), () -> router.map(node.partition(), node.nodeId(), index, 0));
    }

    /** The location of a block, allocating it with the writer's {@code lease} if the node has none there yet. */
    public CompletableFuture<BlockLocation> allocate(NodeRef node, long index, long lease) {
        return cache.get(node.block(index), () -> router.map(node.partition(), node.nodeId(), index, lease));
    }

    /**
     * Reads {@code dst.remaining()} bytes of the node at {@code position} into {@code dst}; the
     * caller has checked the range lies within {@code nodeLength}. {@code dst}'s position is not moved.
     */
    public CompletableFuture<Void> read(NodeRef node, long position, ByteBuffer dst, long nodeLength) {
        List<CompletableFuture<Void>> pieces = new ArrayList<>();
        int done = 0;
        int total = dst.remaining();
        while (done < total) {
            long pos = position + done;
            long index = pos / blockSize;
            int offset = (int) (pos % blockSize);
            int n = (int) Math.min(total - done, blockSize - offset);
            ByteBuffer slice = dst.slice(dst.position() + done, n);
            boolean more = (index + 1) * blockSize < nodeLength;
            pieces.add(readPiece(node, index, offset, slice, more, true));
            done += n;
        }
        return allOf(pieces);
    }

    private CompletableFuture<Void> readPiece(NodeRef node, long index, int offset, ByteBuffer slice, boolean more,
                                              boolean mayRetry) {
        return locate(node, index).thenCompose(loc -> {
            int start = slice.position();
            CompletableFuture<Void> transfer = transports.read(loc, offset, slice);
            if (more) {
                locate(node, index + 1); // overlap: the next lookup runs while this transfer does
            }
            return transfer.handle((v, t) -> {
                if (t == null) {
                    return CompletableFuture.<Void>completedFuture(null);
                }
                CreelException e = CreelException.unwrap(t);
                if (mayRetry && e.code() == ErrorCode.STALE_BLOCK) {
                    // The cached location outlived its allocation; ask the namenode once more.
                    cache.invalidate(node.block(index), loc);
                    slice.position(start);
                    return readPiece(node, index, offset, slice, false, false);
                }
                return CompletableFuture.<Void>failedFuture(e);
            }).thenCompose(f -> f);
        });
    }

    /**
     * Writes {@code src.remaining()} bytes at {@code position} of the node, one BLOCK_WRITE per block
     * piece, all pieces concurrently; {@code src}'s position is not moved. {@code allocator} gives
     * each block's location (the writer allocates blocks in order).
     */
    public CompletableFuture<Void> write(long position, ByteBuffer src, BlockAllocator allocator) {
        List<CompletableFuture<Void>> pieces = new ArrayList<>();
        int done = 0;
        int total = src.remaining();
        while (done < total) {
            long pos = position + done;
            long index = pos / blockSize;
            int offset = (int) (pos % blockSize);
            int n = (int) Math.min(total - done, blockSize - offset);
            ByteBuffer slice = src.slice(src.position() + done, n);
            boolean last = done + n == total;
            boolean preallocate = last && offset + n >= blockSize / 2;
            pieces.add(allocator.allocate(index).thenCompose(loc -> {
                CompletableFuture<Void> transfer = transports.write(loc, offset, slice);
                if (preallocate) {
                    allocator.allocate(index + 1); // the next block is ready before the writer gets there
                }
                return transfer;
            }));
            done += n;
        }
        return allOf(pieces);
    }

    /** Gives the location of block {@code index} of the node being written, allocating it if needed. */
    @FunctionalInterface
    public interface BlockAllocator {
        CompletableFuture<BlockLocation> allocate(long index);
    }

    private static CompletableFuture<Void> allOf(List<CompletableFuture<Void>> pieces) {
        if (pieces.size() == 1) {
            return Futures.clean(pieces.get(0));
        }
        return Futures.clean(CompletableFuture.allOf(pieces.toArray(CompletableFuture[]::new)));
    }
}
