package io.creel.client;

import io.creel.client.block.BlockIo;
import io.creel.client.block.NodeRef;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.NodeInfo;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Asynchronous appends to a File or KeyValue held under a write lease, from the caller's buffers.
 * Each write takes the next range of the node when it is called, so writes may be issued without
 * waiting; a write is split at block boundaries and its pieces go out concurrently. Blocks are
 * allocated in order (the next one ahead of time once the current one is half full).
 *
 * <p>{@link #sync()} publishes the bytes written so far (COMMIT), {@link #close()} publishes them
 * and releases the lease (for a KeyValue this makes the new value visible). Both first wait for
 * every outstanding write; a write that failed fails the next sync or close.
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
    private final Set<CompletableFuture<Void>> outstanding = ConcurrentHashMap.newKeySet();
    private long position;
    private long committed;
    /** Blocks 0..allocated-1 are known to exist, so allocation of the next never leaves a hole. */
    private volatile long allocated;
    private volatile CreelException failure;
    private CompletableFuture<NodeInfo> closing;

    DirectWriter(String path, NodeRef node, long lease, long startLength, BlockIo io, NamenodeRouter router,
                 boolean hasFirstBlock) {
        this.path = path;
        this.node = node;
        this.lease = lease;
        this.io = io;
        this.router = router;
        this.position = startLength;
        this.committed = startLength;
        long bs = io.blockSize();
        this.allocated = Math.max(hasFirstBlock ? 1 : 0, (startLength + bs - 1) / bs);
    }

    /** Bytes written (issued) so far, i.e. where the next write goes. */
    public synchronized long position() {
        return position;
    }

    /** Appends {@code src}'s remaining bytes. */
    public CompletableFuture<Void> write(ByteBuffer src) {
        long start;
        int n = src.remaining();
        synchronized (this) {
            if (closing != null) {
                return Futures.failed(new CreelException(ErrorCode.INVALID_ARGUMENT, path
                        + ": the writer is closed"));
            }
            if (failure != null) {
                return Futures.failed(failure);
            }
            start = position;
            position += n;
        }
        if (n == 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = Futures.guard(() -> io.write(node, start, src, this::allocate));
        outstanding.add(f);
        CompletableFuture<Void> result = new CompletableFuture<>();
        f.whenComplete((v, t) -> {
            outstanding.remove(f);
            if (t == null) {
                src.position(src.limit());
                result.complete(null);
            } else {
                CreelException e = withPath(t);
                synchronized (this) {
                    if (failure == null) {
                        failure = e;
                    }
                }
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Publishes everything written so far; the writer stays open. */
    public CompletableFuture<NodeInfo> sync() {
        return commit(false);
    }

    /**
     * Publishes everything written so far and releases the lease. Calling it again returns the
     * same outcome.
     */
    public synchronized CompletableFuture<NodeInfo> close() {
        if (closing == null) {
            closing = commit(true);
        }
        return closing;
    }

    private CompletableFuture<NodeInfo> commit(boolean close) {
        long length;
        CompletableFuture<?>[] waits;
        synchronized (this) {
            if (!close && closing != null) {
                return Futures.failed(new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": the writer is closed"));
            }
            length = position;
            waits = outstanding.toArray(CompletableFuture[]::new);
        }
        return CompletableFuture.allOf(waits).handle((v, t) -> (Void) null).thenCompose(v -> {
            CreelException failed = failure;
            if (failed != null) {
                if (close) {
                    // Give the lease back with what was safely published before the failure.
                    long safe;
                    synchronized (this) {
                        safe = committed;
                    }
                    router.commit(node.partition(), new CommitRequest(node.nodeId(), lease, safe, true));
                }
                return Futures.<NodeInfo>failed(failed);
            }
            return router.commit(node.partition(), new CommitRequest(node.nodeId(), lease, length, close))
                    .thenApply(info -> {
                        synchronized (this) {
                            committed = Math.max(committed, length);
                        }
                        if (close) {
                            forgetTrimmedBlocks(length);
                        }
                        return info;
                    });
        }).exceptionallyCompose(t -> Futures.failed(withPath(t)));
    }

    /**
     * A close frees the blocks beyond the committed length (the eager first block of an empty File,
     * a block allocated ahead); their cached locations must go too, or a later append through this
     * client would write into a freed block instead of asking the namenode for a new one.
     */
    private void forgetTrimmedBlocks(long length) {
        long bs = io.blockSize();
        long keep = (length + bs - 1) / bs;
        for (long i = keep; i < allocated + 1; i++) {
            io.cache().forget(node.block(i));
        }
    }

    private CompletableFuture<BlockLocation> allocate(long index) {
        CompletableFuture<BlockLocation> f;
        if (index < allocated || index == 0) {
            f = io.allocate(node, index, lease);
        } else {
            f = allocate(index - 1).thenCompose(prev -> io.allocate(node, index, lease));
        }
        return f.thenApply(loc -> {
            synchronized (this) {
                if (allocated < index + 1) {
                    allocated = index + 1;
                }
            }
            return loc;
        });
    }

    private CreelException withPath(Throwable t) {
        CreelException e = CreelException.unwrap(t);
        String msg = e.getMessage() == null ? "" : e.getMessage();
        return msg.startsWith(path) ? e : new CreelException(e.code(), path + ": " + msg, e);
    }
}
