package io.creel.client;

import io.creel.client.block.BlockIo;
import io.creel.client.block.NodeRef;
import io.creel.client.block.WrittenBlocks;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.NodeInfo;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Asynchronous appends to a File or KeyValue held under a write lease, from the caller's buffers.
 * Each write takes the next range of the node when it is called, so writes may be issued without
 * waiting; a write is split at block boundaries and its pieces go out concurrently. Blocks are
 * allocated in order (the next one ahead of time once the current one is half full). A block whose
 * storage server cannot be reached is allocated again on another server, as long as none of it was
 * written there yet ({@link WrittenBlocks}); only when no server can take it does the write fail.
 *
 * <p>{@link #sync()} publishes the bytes written so far (COMMIT), {@link #close()} publishes them
 * and releases the lease (for a KeyValue this makes the new value visible).
 *
 * <p>Failures are part of the writer's state, not reported on the side: every write, and every
 * sync, is joined into one future ({@code state}) in the order they were issued, and a sync or
 * close commits only what that future covers, once it has completed. So a writer that saw a
 * failure can only fail, with the first failure in issue order: it refuses further writes, its
 * syncs fail, and its close fails too — after giving the lease back without publishing anything
 * more (a File keeps what earlier syncs published, a KeyValue keeps its old value).
 *
 * <p>Small data stays off the data plane: while the node is empty or kept inline by the namenode and
 * everything written fits the namenode's inline limit, writes are only copied here and a sync or
 * close carries the bytes in its COMMIT (no block is written). The first write past the limit
 * writes everything held so far, and itself, to blocks; from then on the node lives in blocks.
 *
 * <p>Buffer ownership: a buffer passed to {@link #write} belongs to the writer until the returned
 * future completes; then its position is at its limit.
 */
public final class DirectWriter {
    private final String path;
    private final NodeRef node;
    private final long lease;
    private final BlockIo io;
    private final NamenodeRouter router;
    /** Where the blocks being written are, and moving one off a server that cannot be reached. */
    private final WrittenBlocks places;
    /** Every write and sync issued so far, joined in issue order; failed once any of them failed. */
    private CompletableFuture<Void> state = CompletableFuture.completedFuture(null);
    private long position;
    private long committed;
    /** Blocks 0..allocated-1 are known to exist, so allocation of the next never leaves a hole. */
    private volatile long allocated;
    /** Allocations under way of blocks beyond {@code allocated}, each waiting for the one before. */
    private final ConcurrentHashMap<Long, CompletableFuture<BlockLocation>> allocating = new ConcurrentHashMap<>();
    private CompletableFuture<NodeInfo> closing;
    /**
     * Allocations ahead of the writer still under way. A close waits for them: one reaching the
     * namenode after the close gave the lease back would be refused there (LEASE_CONFLICT, counted
     * as an error by every monitor).
     */
    private final Set<CompletableFuture<?>> ahead = ConcurrentHashMap.newKeySet();
    /** While the node's bytes may stay inline: all of them ({@code [0, position)}); else {@code null}. */
    private ByteBuffer held;
    /** The most bytes the namenode keeps inline. */
    private final int inlineLimit;
    /** Whether what the namenode has committed is inline (so the node has no published blocks). */
    private boolean committedInline;
    /** How many of {@link #held}'s bytes the namenode has committed inline (a batched sync sends only the rest). */
    private int heldCommitted;

    /**
     * @param startLength the node's committed length
     * @param inline      the node's committed bytes if the namenode keeps them inline, else {@code null}
     * @param inlineLimit the namenode's inline limit (0: none)
     */
    DirectWriter(String path, NodeRef node, long lease, long startLength, BlockIo io, NamenodeRouter router,
                 boolean hasFirstBlock, byte[] inline, int inlineLimit) {
        this.path = path;
        this.node = node;
        this.lease = lease;
        this.io = io;
        this.router = router;
        this.places = new WrittenBlocks(node, lease, io);
        this.position = startLength;
        this.committed = startLength;
        this.inlineLimit = inlineLimit;
        this.committedInline = inline != null;
        // An inline node has no blocks: its bytes go to block 0 only when they outgrow the limit.
        this.allocated = inline != null ? (hasFirstBlock ? 1 : 0)
                : Math.max(hasFirstBlock ? 1 : 0, io.layout(node).blocksFor(startLength));
        if (inline != null) {
            heldCommitted = inline.length;
            held = ByteBuffer.allocate(Math.max(inline.length, Math.min(inlineLimit, Math.max(64, 2 * inline.length))))
                    .put(inline);
            if (inline.length > inlineLimit) {
                spill(); // the namenode's limit is lower than when these bytes were committed
            }
        } else if (startLength == 0 && inlineLimit > 0) {
            held = ByteBuffer.allocate(Math.min(inlineLimit, 256));
        }
    }

    /** Bytes written (issued) so far, i.e. where the next write goes. */
    public synchronized long position() {
        return position;
    }

    /** Appends {@code src}'s remaining bytes. */
    public CompletableFuture<Void> write(ByteBuffer src) {
        int n = src.remaining();
        CompletableFuture<Void> piece;
        synchronized (this) {
            if (closing != null) {
                return Futures.failed(new CreelException(ErrorCode.INVALID_ARGUMENT, path
                        + ": the writer is closed"));
            }
            if (state.isCompletedExceptionally()) {
                return Futures.failed(failureOf(state));
            }
            if (n == 0) {
                return CompletableFuture.completedFuture(null);
            }
            if (held != null) {
                if (position + n <= inlineLimit) {
                    hold(src);
                    position += n;
                    return CompletableFuture.completedFuture(null);
                }
                spill();
            }
            long start = position;
            position += n;
            piece = Futures.guard(() -> io.write(node, start, src, blocks))
                    .exceptionallyCompose(t -> Futures.failed(withPath(t)));
            state = joined(state, piece);
        }
        return Futures.clean(piece.thenRun(() -> src.position(src.limit())));
    }

    /** Copies {@code src}'s remaining bytes into {@link #held} (consuming them). */
    private void hold(ByteBuffer src) {
        if (held.remaining() < src.remaining()) {
            int need = held.position() + src.remaining();
            ByteBuffer bigger = ByteBuffer.allocate(Math.min(inlineLimit, Math.max(need, 2 * held.capacity())));
            held.flip();
            held = bigger.put(held);
        }
        held.put(src);
    }

    /** The node outgrows the inline limit: what was held goes to blocks, like any write, and holding ends. */
    private void spill() {
        ByteBuffer bytes = held.flip();
        held = null;
        if (!bytes.hasRemaining()) {
            return;
        }
        CompletableFuture<Void> piece = Futures.guard(() -> io.write(node, 0, bytes, blocks))
                .exceptionallyCompose(t -> Futures.failed(withPath(t)));
        state = joined(state, piece);
    }

    /** The bytes to commit inline now, or {@code null} when the node is in blocks. */
    private byte[] heldBytes() {
        return held == null ? null : Arrays.copyOf(held.array(), held.position());
    }

    /** Publishes everything written so far; the writer stays open. */
    public CompletableFuture<NodeInfo> sync() {
        CompletableFuture<NodeInfo> outcome;
        synchronized (this) {
            if (closing != null) {
                return Futures.failed(new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": the writer is closed"));
            }
            outcome = commit(state, position, false, heldBytes());
            // A failed sync fails the writer: what it was to publish is in doubt.
            state = joined(state, outcome);
        }
        return outcome;
    }

    /**
     * Publishes what each writer has written so far, as {@link #sync()} does for one, in one request
     * per namenode partition (SYNC_MANY) instead of one per writer: what a task appending to many
     * nodes at once does at its end. A writer kept inline sends only the bytes it added since its
     * last sync. The returned future fails if any writer's sync failed (with the first such failure,
     * naming its path); each writer's own state records its outcome exactly as {@link #sync()}
     * would, so a writer whose sync failed can only fail from then on, and the others are unharmed.
     */
    public static CompletableFuture<Void> syncAll(java.util.Collection<DirectWriter> writers) {
        java.util.List<BatchedSync.Pending> pending = new java.util.ArrayList<>(writers.size());
        for (DirectWriter w : writers) {
            pending.add(w.beginBatchedSync());
        }
        return BatchedSync.send(pending);
    }

    /** This writer's part of a {@link #syncAll}: issued like a sync, so later writes and syncs wait behind it. */
    private synchronized BatchedSync.Pending beginBatchedSync() {
        CompletableFuture<NodeInfo> outcome = new CompletableFuture<>();
        if (closing != null) {
            outcome.completeExceptionally(new CreelException(ErrorCode.INVALID_ARGUMENT, path
                    + ": the writer is closed"));
            return new BatchedSync.Pending(this, outcome, outcome.thenApply(i -> null), position, null, 0);
        }
        CompletableFuture<Void> upTo = state;
        // Inline bytes are taken now (a later write may move them to blocks before this sync is sent),
        // only those not committed yet: an earlier sync still in flight commits a prefix of them.
        int base = held == null ? 0 : Math.min(heldCommitted, held.position());
        byte[] inlineNow = held == null ? null : Arrays.copyOfRange(held.array(), base, held.position());
        state = joined(state, outcome);
        return new BatchedSync.Pending(this, outcome, upTo, position, inlineNow, base);
    }

    /**
     * The entry of a batched sync of {@code length}, made once everything issued before it completed
     * (so an earlier sync's inline bytes are known committed): inline, only the bytes not committed
     * yet, of {@code inlineNow} (the node's bytes from {@code base} when the sync was issued).
     */
    synchronized io.creel.common.protocol.SyncManyRequest.Entry batchedEntry(long length, byte[] inlineNow, int base) {
        byte[] appended = inlineNow == null ? null : Arrays.copyOfRange(inlineNow,
                Math.min(Math.max(heldCommitted - base, 0), inlineNow.length), inlineNow.length);
        return new io.creel.common.protocol.SyncManyRequest.Entry(node.nodeId(), lease, length, appended);
    }

    /** The namenode answered this writer's entry of a batched sync. */
    void batchedSyncDone(io.creel.common.protocol.SyncManyRequest.Entry entry, Throwable failure,
                         CompletableFuture<NodeInfo> outcome) {
        if (failure != null) {
            outcome.completeExceptionally(withPath(failure));
            return;
        }
        synchronized (this) {
            committed = Math.max(committed, entry.length());
            committedInline = entry.appended() != null;
            if (entry.appended() != null) {
                heldCommitted = (int) Math.max(heldCommitted, entry.length());
            }
        }
        if (entry.appended() == null) {
            places.forgetBefore(entry.length() / io.blockSize()); // published: those blocks stay where they are
        }
        outcome.complete(null);
    }

    /** The partition of the namenode that commits this writer's node, and how to reach it. */
    int partition() {
        return node.partition();
    }

    NamenodeRouter router() {
        return router;
    }

    /**
     * Publishes everything written so far and releases the lease. If any write or sync failed, or
     * the commit itself fails, the lease is given back publishing nothing more and the close fails
     * with that failure. Calling it again returns the same outcome.
     */
    public synchronized CompletableFuture<NodeInfo> close() {
        if (closing == null) {
            // Whatever the writes' outcome, the lease goes back only after the allocations ahead.
            CompletableFuture<Void> writes = state;
            closing = commit(aheadSettled().thenCompose(v -> writes), position, true, heldBytes());
        }
        return closing;
    }

    /** Completes (never exceptionally) when every allocation ahead issued so far has. */
    private CompletableFuture<Void> aheadSettled() {
        CompletableFuture<?>[] pending = ahead.toArray(CompletableFuture[]::new);
        return pending.length == 0 ? CompletableFuture.completedFuture(null)
                : CompletableFuture.allOf(pending).handle((v, t) -> null);
    }

    /**
     * Commits {@code length} once {@code upTo} (every write and sync issued before) has completed;
     * with {@code inline}, those bytes are the node's whole content and go with the commit.
     */
    private CompletableFuture<NodeInfo> commit(CompletableFuture<Void> upTo, long length, boolean close,
                                               byte[] inline) {
        return upTo.handle((v, t) -> t).thenCompose(failed -> {
            if (failed != null) {
                return close ? abandon(withPath(failed)) : Futures.<NodeInfo>failed(withPath(failed));
            }
            CommitRequest req = inline != null ? CommitRequest.inline(node.nodeId(), lease, inline, close)
                    : close ? CommitRequest.close(node.nodeId(), lease, length)
                    : CommitRequest.sync(node.nodeId(), lease, length);
            return router.commit(node.partition(), req).handle((info, t) -> {
                if (t != null) {
                    CreelException e = withPath(t);
                    return close ? abandon(e) : Futures.<NodeInfo>failed(e);
                }
                synchronized (this) {
                    committed = Math.max(committed, length);
                    committedInline = inline != null;
                    if (inline != null) {
                        heldCommitted = Math.max(heldCommitted, inline.length);
                    }
                }
                if (inline == null) {
                    places.forgetBefore(io.layout(node).blockOf(length)); // published: those blocks stay where they are
                }
                if (close) {
                    forgetTrimmedBlocks(inline != null ? 0 : length);
                }
                return CompletableFuture.completedFuture(info);
            }).thenCompose(f -> f);
        });
    }

    /**
     * Gives the lease back without publishing anything more, then fails with {@code cause}. The
     * close waits for the release, so once it has failed the node can be opened again.
     */
    private CompletableFuture<NodeInfo> abandon(CreelException cause) {
        long safe;
        synchronized (this) {
            safe = committedInline ? 0 : committed;
        }
        return router.commit(node.partition(), CommitRequest.abandon(node.nodeId(), lease)).handle((info, t) -> {
            forgetTrimmedBlocks(safe);
            if (t != null) {
                CreelException e = CreelException.unwrap(t);
                // Gone or no longer ours (removed, replaced, or the connection that held it closed): nothing to give back.
                if (e.code() != ErrorCode.NOT_FOUND && e.code() != ErrorCode.LEASE_CONFLICT) {
                    cause.addSuppressed(e);
                }
            }
            return Futures.<NodeInfo>failed(cause);
        }).thenCompose(f -> f);
    }

    /**
     * A close frees the blocks beyond the committed length (the eager first block of an empty File,
     * a block allocated ahead, every block of a node committed inline); their cached locations must
     * go too, or a later append through this client would write into a freed block instead of asking
     * the namenode for a new one.
     */
    private void forgetTrimmedBlocks(long length) {
        long keep = io.layout(node).blocksFor(length);
        for (long i = keep; i < allocated + 1; i++) {
            io.cache().forget(node.block(i));
        }
    }

    /** The writer's side of block allocation: in order, and following blocks that move. */
    private final BlockIo.BlockAllocator blocks = new BlockIo.BlockAllocator() {
        @Override
        public CompletableFuture<BlockLocation> allocate(long index) {
            return DirectWriter.this.allocate(index);
        }

        @Override
        public void allocateAhead(long index, CompletableFuture<?> after) {
            CompletableFuture<BlockLocation> f = after.thenCompose(l -> DirectWriter.this.allocate(index));
            ahead.add(f);
            f.whenComplete((l, t) -> ahead.remove(f));
        }

        @Override
        public void attemptStarted(long index, BlockLocation at) {
            places.started(index, at);
        }

        @Override
        public boolean attemptEnded(long index, BlockLocation at, boolean ok) {
            return places.ended(index, at, ok);
        }

        @Override
        public CompletableFuture<BlockLocation> moveFrom(long index, BlockLocation unreachable) {
            return places.moveFrom(index, unreachable);
        }

        @Override
        public CompletableFuture<BlockLocation> dropCopy(long index, BlockLocation block,
                                                         io.creel.common.protocol.StorageServerInfo unreachable) {
            return io.dropCopy(node, index, lease, block, unreachable);
        }
    };

    private CompletableFuture<BlockLocation> allocate(long index) {
        if (index < allocated || index == 0) {
            return counted(index, io.allocate(node, index, lease));
        }
        // Block index-1 must exist first (no holes), so this allocation waits for that one. The chain
        // is made once per block: every piece asking for the block shares it, instead of each walking
        // back to the last block allocated (which made a large write quadratic in its blocks).
        CompletableFuture<BlockLocation> chain = allocating.get(index);
        if (chain != null) {
            return chain;
        }
        CompletableFuture<BlockLocation> mine = new CompletableFuture<>();
        chain = allocating.putIfAbsent(index, mine);
        if (chain != null) {
            return chain;
        }
        CompletableFuture<BlockLocation> after = allocate(index - 1)
                .thenCompose(prev -> io.allocate(node, index, lease));
        counted(index, after).whenComplete((loc, t) -> {
            allocating.remove(index, mine);
            if (t != null) {
                mine.completeExceptionally(t);
            } else {
                mine.complete(loc);
            }
        });
        return mine;
    }

    /** {@code f}, recording once it succeeds that blocks up to {@code index} exist. */
    private CompletableFuture<BlockLocation> counted(long index, CompletableFuture<BlockLocation> f) {
        return f.thenApply(loc -> {
            synchronized (this) {
                if (allocated < index + 1) {
                    allocated = index + 1;
                }
            }
            return loc;
        });
    }

    /** {@code earlier} and then {@code later}: fails with the earlier's failure if both fail. */
    private static CompletableFuture<Void> joined(CompletableFuture<Void> earlier, CompletableFuture<?> later) {
        return earlier.thenCombine(later, (a, b) -> null);
    }

    private static CreelException failureOf(CompletableFuture<?> failed) {
        return failed.handle((v, t) -> CreelException.unwrap(t)).join();
    }

    private CreelException withPath(Throwable t) {
        CreelException e = CreelException.unwrap(t);
        String msg = e.getMessage() == null ? "" : e.getMessage();
        return msg.startsWith(path) ? e : new CreelException(e.code(), path + ": " + msg, e);
    }
}
