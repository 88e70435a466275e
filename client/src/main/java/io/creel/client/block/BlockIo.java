package io.creel.client.block;

import io.creel.client.Futures;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.namespace.BlockLayout;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Moves byte ranges of a node's data: splits a range at block boundaries and hands each piece, with
 * a locator backed by the block-location cache (else MAP), to {@link BlockTransfers}, all pieces at
 * once. What happens when a piece fails (a fresh location, another transport, the error's wording)
 * is decided there, not here.
 *
 * <p>Lookups overlap transfers: once the location of block i is known and the node extends beyond
 * it, the location of block i+1 is requested, so a sequential reader finds it ready.
 */
public final class BlockIo {
    private final NamenodeRouter router;
    private final BlockLocationCache cache;
    private final BlockTransfers transfers;
    private final BlockLayout layout;

    public BlockIo(NamenodeRouter router, BlockLocationCache cache, BlockTransfers transfers, long blockSize) {
        this.router = router;
        this.cache = cache;
        this.transfers = transfers;
        this.layout = BlockLayout.uniform(blockSize);
    }

    /** Bytes per block of the cluster ({@code creel.block.size}); a node's own blocks follow {@link #layout}. */
    public long blockSize() {
        return layout.blockSize();
    }

    /**
     * How {@code node}'s bytes map to its blocks: every offset-to-block computation of the client
     * goes through it. Block 0 may be a size class's, shorter than a block ({@link NodeRef#firstBlockSize});
     * the namenode never changes it while the node has blocks.
     */
    public BlockLayout layout(NodeRef node) {
        int first = node.firstBlockSize();
        return first == 0 || first >= layout.blockSize() ? layout : new BlockLayout(first, layout.blockSize());
    }

    public BlockLocationCache cache() {
        return cache;
    }

    public BlockTransfers transfers() {
        return transfers;
    }

    /** The location of an existing block (MAP without a lease, so nothing is allocated). */
    public CompletableFuture<BlockLocation> locate(NodeRef node, long index) {
        return cache.get(node.block(index), () -> router.map(node.partition(), node.nodeId(), index, 0));
    }

    /**
     * Blocks a reader asks for at once: a sequential read of a large node costs one LOCATE per this
     * many blocks instead of one MAP per block (in a fresh JVM a MAP cost about 0.1 ms of the
     * client's CPU, 0.1 s per GiB of 1 MiB blocks).
     */
    static final int LOCATE_RUN = 64;

    /**
     * The location of existing block {@code index} of a node of {@code blocks} blocks, asked for
     * together with the blocks after it (up to {@link #LOCATE_RUN}) that are not cached yet.
     */
    public CompletableFuture<BlockLocation> locateRun(NodeRef node, long index, long blocks) {
        // At most half the cache, so a run never evicts itself.
        int count = (int) Math.max(1, Math.min(Math.min(LOCATE_RUN, cache.capacity() / 2), blocks - index));
        if (count == 1) {
            return locate(node, index);
        }
        return cache.getRun(node.block(index), count,
                n -> router.locate(node.partition(), node.nodeId(), index, n),
                key -> router.map(node.partition(), node.nodeId(), key.blockIndex(), 0));
    }

    /** The location of a block, allocating it with the writer's {@code lease} if the node has none there yet. */
    public CompletableFuture<BlockLocation> allocate(NodeRef node, long index, long lease) {
        return cache.get(node.block(index), () -> router.map(node.partition(), node.nodeId(), index, lease));
    }

    /**
     * Allocates block {@code index} again elsewhere after the writer could not reach the server of
     * {@code unreachable}; the new location replaces the old one in the cache.
     */
    public CompletableFuture<BlockLocation> move(NodeRef node, long index, long lease, BlockLocation unreachable) {
        return leave(node, index, lease, unreachable.tag(), unreachable.server());
    }

    /**
     * Drops the copy on {@code unreachable} from replicated block {@code index} after the writer could
     * not reach that server; the block's location now replaces the old one in the cache.
     */
    public CompletableFuture<BlockLocation> dropCopy(NodeRef node, long index, long lease, BlockLocation block,
                                                     StorageServerInfo unreachable) {
        return leave(node, index, lease, block.tag(), unreachable);
    }

    /**
     * Asks the namenode to take block {@code index} (named by {@code tag}) off {@code unreachable}. A
     * server id is one namenode run's name for a server: a location learned before the namenode
     * restarted carries ids it no longer uses, or uses for other servers. So the block is looked up
     * first and the server named by the id the namenode gives the copy at its address now (a MAP
     * more, on a path taken only when a server is gone); with no copy there any more, the block has
     * left that server already and its location now is the answer.
     */
    private CompletableFuture<BlockLocation> leave(NodeRef node, long index, long lease, long tag,
                                                   StorageServerInfo unreachable) {
        return router.map(node.partition(), node.nodeId(), index, lease).thenCompose(now -> {
            for (BlockLocation c : now.copies()) {
                if (c.server().address().equals(unreachable.address())) {
                    return router.map(node.partition(), node.nodeId(), index, lease, tag, c.server().serverId());
                }
            }
            return CompletableFuture.completedFuture(now);
        }).thenApply(loc -> {
            cache.put(loc, node.partition());
            return loc;
        });
    }

    /**
     * Reads {@code dst.remaining()} bytes of the node at {@code position} into {@code dst}; the
     * caller has checked the range lies within {@code nodeLength}. {@code dst}'s position is not moved.
     */
    public CompletableFuture<Void> read(NodeRef node, long position, ByteBuffer dst, long nodeLength) {
        List<CompletableFuture<Void>> pieces = new ArrayList<>();
        BlockLayout l = layout(node);
        long blocks = l.blocksFor(nodeLength);
        int done = 0;
        int total = dst.remaining();
        while (done < total) {
            long pos = position + done;
            long index = l.blockOf(pos);
            int offset = l.offsetInBlock(pos);
            int n = (int) Math.min(total - done, l.remainingInBlock(pos));
            ByteBuffer slice = dst.slice(dst.position() + done, n);
            pieces.add(transfers.read(node.path(), index, locator(node, index, blocks), offset, slice));
            done += n;
        }
        return allOf(pieces);
    }

    /**
     * Block {@code index} of {@code node} (of {@code blocks} blocks) through the cache, with the
     * blocks after it; a stale location is dropped and asked for again. The next block's lookup
     * starts as soon as this block's transfer does (usually a cache hit: it came with this one's run).
     */
    private BlockLocator locator(NodeRef node, long index, long blocks) {
        boolean more = index + 1 < blocks;
        return new BlockLocator() {
            @Override
            public CompletableFuture<BlockLocation> locate() {
                return BlockIo.this.locateRun(node, index, blocks);
            }

            @Override
            public CompletableFuture<BlockLocation> relocate(BlockLocation stale) {
                cache.invalidate(node.block(index), stale);
                return BlockIo.this.locate(node, index);
            }

            @Override
            public void transferStarted(BlockLocation at) {
                if (more) {
                    BlockIo.this.locateRun(node, index + 1, blocks); // overlap: the next lookup runs while this transfer does
                }
            }
        };
    }

    /**
     * Writes {@code src.remaining()} bytes at {@code position} of the node, one BLOCK_WRITE per block
     * piece, all pieces concurrently; {@code src}'s position is not moved. {@code allocator} gives
     * each block's location (the writer allocates blocks in order).
     */
    public CompletableFuture<Void> write(NodeRef node, long position, ByteBuffer src, BlockAllocator allocator) {
        List<CompletableFuture<Void>> pieces = new ArrayList<>();
        BlockLayout l = layout(node);
        int done = 0;
        int total = src.remaining();
        while (done < total) {
            long pos = position + done;
            long index = l.blockOf(pos);
            int offset = l.offsetInBlock(pos);
            int n = (int) Math.min(total - done, l.remainingInBlock(pos));
            ByteBuffer slice = src.slice(src.position() + done, n);
            boolean last = done + n == total;
            boolean preallocate = last && offset + n >= l.size(index) / 2;
            CompletableFuture<BlockLocation> where = allocator.allocate(index);
            if (preallocate) {
                // the next block is ready before the writer gets there
                allocator.allocateAhead(index + 1, where);
            }
            pieces.add(transfers.write(node.path(), index, writeLocator(allocator, index, where), offset, slice));
            done += n;
        }
        return allOf(pieces);
    }

    private static BlockLocator writeLocator(BlockAllocator allocator, long index, CompletableFuture<BlockLocation> where) {
        return new BlockLocator() {
            @Override
            public CompletableFuture<BlockLocation> locate() {
                return where;
            }

            @Override
            public void attemptStarted(BlockLocation at) {
                allocator.attemptStarted(index, at);
            }

            @Override
            public boolean attemptEnded(BlockLocation at, boolean ok) {
                return allocator.attemptEnded(index, at, ok);
            }

            @Override
            public CompletableFuture<BlockLocation> moveFrom(BlockLocation unreachable) {
                return allocator.moveFrom(index, unreachable);
            }

            @Override
            public CompletableFuture<BlockLocation> dropCopy(BlockLocation block, StorageServerInfo unreachable) {
                return allocator.dropCopy(index, block, unreachable);
            }
        };
    }

    /**
     * Where the blocks of the node being written are: gives the location of block {@code index},
     * allocating it if needed, and may follow the transfers into each block so it can move a block
     * whose server cannot be reached (see {@link BlockLocator#moveFrom}).
     */
    @FunctionalInterface
    public interface BlockAllocator {
        CompletableFuture<BlockLocation> allocate(long index);

        /**
         * Allocates block {@code index} ahead of the writer, once {@code after} (the block before)
         * is allocated; nobody waits for it here. A writer that keeps a lease overrides this to know
         * when such an allocation is still under way, so that it gives the lease back only after.
         */
        default void allocateAhead(long index, CompletableFuture<?> after) {
            after.thenRun(() -> allocate(index));
        }

        /** See {@link BlockLocator#attemptStarted}. */
        default void attemptStarted(long index, BlockLocation at) {
        }

        /** See {@link BlockLocator#attemptEnded}. */
        default boolean attemptEnded(long index, BlockLocation at, boolean ok) {
            return true;
        }

        /** See {@link BlockLocator#moveFrom}; by default blocks do not move. */
        default CompletableFuture<BlockLocation> moveFrom(long index, BlockLocation unreachable) {
            return null;
        }

        /** See {@link BlockLocator#dropCopy}; by default copies are not dropped. */
        default CompletableFuture<BlockLocation> dropCopy(long index, BlockLocation block,
                                                          StorageServerInfo unreachable) {
            return null;
        }
    }

    private static CompletableFuture<Void> allOf(List<CompletableFuture<Void>> pieces) {
        if (pieces.size() == 1) {
            return Futures.clean(pieces.get(0));
        }
        return Futures.clean(CompletableFuture.allOf(pieces.toArray(CompletableFuture[]::new)));
    }
}
