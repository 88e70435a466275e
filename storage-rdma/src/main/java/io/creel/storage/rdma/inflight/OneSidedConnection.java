package io.creel.storage.rdma.inflight;

import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaOperation;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * What every connection does the same way, whatever moves the bytes: argument checks, the bounded
 * in-flight table and the queue behind it, posting in call order, deadlines, and breaking the
 * connection on the first failure. Subclasses post work requests ({@link #post}), stop the device
 * from touching local buffers ({@link #abort}) and report completions ({@link #completed}).
 *
 * <p>Posting order: operations take their slot in call order (a full table queues them in order),
 * and one thread at a time posts the slotted ones in that order, outside the lock; so the device
 * sees them as they were called, which fences and write-then-read placement rely on.
 *
 * <p>Ordering on failure: {@link #abort} returns before any pending future fails, so a caller may
 * reuse a buffer as soon as its future completed.
 */
public abstract class OneSidedConnection implements RdmaConnection {
    private final Object lock = new Object();
    private final InetSocketAddress peer;
    private final RdmaSettings settings;
    private final LongSupplier clock;
    private final WorkRequestTable table;
    private final ArrayDeque<PendingOperation> waiting = new ArrayDeque<>();
    /** Operations that have a slot and a work request id, in call order, not posted yet. */
    private final ArrayDeque<Slotted> unposted = new ArrayDeque<>();
    /** Whether a thread is posting {@link #unposted}; the others leave their operations to it. */
    private boolean posting;
    private RdmaException failure;
    private boolean closed;
    private boolean aborted;

    /**
     * @param connectionId unique among the device's connections; carried in every work request id
     * @param clock        nanosecond clock for deadlines ({@code System::nanoTime} outside tests)
     */
    protected OneSidedConnection(int connectionId, InetSocketAddress peer, RdmaSettings settings, LongSupplier clock) {
        this.peer = peer;
        this.settings = settings;
        this.clock = clock;
        this.table = new WorkRequestTable(connectionId, settings.queueDepth());
    }

    @Override
    public final InetSocketAddress peer() {
        return peer;
    }

    private record Slotted(PendingOperation op, long wrId) {
    }

    @Override
    public final CompletableFuture<Void> read(RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length) {
        return submit(RdmaOperation.READ, local, localOffset, remote, remoteOffset, length, false, 0, 0);
    }

    @Override
    public final CompletableFuture<Void> readFenced(RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length) {
        return submit(RdmaOperation.READ, local, localOffset, remote, remoteOffset, length, true, 0, 0);
    }

    @Override
    public final CompletableFuture<Void> write(RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length) {
        return submit(RdmaOperation.WRITE, local, localOffset, remote, remoteOffset, length, false, 0, 0);
    }

    @Override
    public final CompletableFuture<Void> compareAndSwap(RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, long expected, long replacement, boolean fenced) {
        return submit(RdmaOperation.COMPARE_AND_SWAP, local, localOffset, remote, remoteOffset, Long.BYTES, fenced,
                expected, replacement);
    }

    @Override
    public final int inFlight() {
        synchronized (lock) {
            return table.size();
        }
    }

    /** Operations waiting for a free slot. */
    public final int waiting() {
        synchronized (lock) {
            return waiting.size();
        }
    }

    @Override
    public final boolean isOpen() {
        synchronized (lock) {
            return !closed && failure == null;
        }
    }

    @Override
    public final RdmaException failure() {
        synchronized (lock) {
            return failure;
        }
    }

    private CompletableFuture<Void> submit(RdmaOperation operation, RegisteredMemory local, int localOffset,
            RemoteRegion remote, long remoteOffset, int length, boolean fenced, long compare, long swap) {
        String problem = checkArguments(operation, local, localOffset, remote, remoteOffset, length);
        if (problem != null) {
            return CompletableFuture.failedFuture(new RdmaException(Kind.INVALID_ARGUMENT, peer,
                    "RDMA " + operation + " to " + peer + " not posted: " + problem));
        }
        PendingOperation op = new PendingOperation(operation, local, localOffset, remote, remoteOffset, length, fenced,
                compare, swap, clock.getAsLong() + settings.operationTimeout().toNanos());
        synchronized (lock) {
            RdmaException refused = refusal(op);
            if (refused != null) {
                return CompletableFuture.failedFuture(refused);
            }
            // A free slot while others wait cannot happen: a completion hands its slot to the first waiting.
            long wrId = table.add(op);
            if (wrId < 0) {
                waiting.addLast(op);
                return op.future();
            }
            unposted.addLast(new Slotted(op, wrId));
        }
        postInOrder();
        return op.future();
    }

    private String checkArguments(RdmaOperation operation, RegisteredMemory local, int localOffset,
            RemoteRegion remote, long remoteOffset, int length) {
        if (local == null || remote == null) {
            return "local memory and remote region are required";
        }
        if (length <= 0) {
            return "length must be positive, got " + length;
        }
        if (localOffset < 0 || localOffset > local.length() - length) {
            return "local range " + localOffset + "+" + length + " is outside the registered " + local.length()
                    + " bytes";
        }
        if (!remote.contains(remoteOffset, length)) {
            return "remote range " + remoteOffset + "+" + length + " is outside " + remote;
        }
        if (!local.isOpen()) {
            return "the local memory was deregistered";
        }
        if (operation == RdmaOperation.COMPARE_AND_SWAP) {
            if (!atomics().available()) {
                return "this device cannot post atomic operations";
            }
            if ((remote.address() + remoteOffset) % Long.BYTES != 0 || localOffset % Long.BYTES != 0) {
                return "a compare-and-swap needs 8-byte aligned addresses (remote offset " + remoteOffset
                        + ", local offset " + localOffset + ")";
            }
        }
        return acceptsLocal(local) ? null
                : "the local memory was registered with another device than this connection's";
    }

    /** Null when the operation may be queued, else the exception to fail it with (lock held). */
    private RdmaException refusal(PendingOperation op) {
        if (failure != null) {
            return new RdmaException(failure.kind(), peer,
                    op.describe(peer) + " refused: the connection broke earlier: " + failure.getMessage(), failure);
        }
        if (closed) {
            return new RdmaException(Kind.CLOSED, peer, op.describe(peer) + " refused: the connection is closed");
        }
        return null;
    }

    /**
     * Posts the slotted operations in order. Only one thread posts at a time; a thread that finds
     * another posting leaves its operation to it, which keeps the call order on the device.
     */
    private void postInOrder() {
        while (true) {
            Slotted next;
            synchronized (lock) {
                if (posting || unposted.isEmpty()) {
                    return;
                }
                posting = true;
                next = unposted.pollFirst();
            }
            try {
                while (next != null) {
                    postOrBreak(next.op(), next.wrId());
                    synchronized (lock) {
                        next = unposted.pollFirst();
                    }
                }
            } finally {
                synchronized (lock) {
                    posting = false;
                }
            }
        }
    }

    private void postOrBreak(PendingOperation op, long wrId) {
        try {
            post(op, wrId);
        } catch (RdmaException e) {
            fail(e);
        } catch (RuntimeException e) {
            fail(new RdmaException(Kind.INTERNAL, peer, "posting " + op.describe(peer) + " failed: " + e, e));
        }
    }

    /**
     * Reports the completion of a work request: {@code errorKind} null for success, else the kind
     * and a text such as "remote access error (IBV_WC_REM_ACCESS_ERR)". Completions whose id is not
     * live (flushed after the connection broke, or stale) are ignored. An error breaks the
     * connection. Called by the implementation's completion thread.
     */
    protected final void completed(long wrId, Kind errorKind, String errorText) {
        PendingOperation op;
        boolean slotted = false;
        synchronized (lock) {
            op = table.remove(wrId);
            if (op == null) {
                return;
            }
            if (errorKind == null && failure == null && !closed && !waiting.isEmpty()) {
                PendingOperation next = waiting.pollFirst();
                unposted.addLast(new Slotted(next, table.add(next)));
                slotted = true;
            }
        }
        if (errorKind == null) {
            op.future().complete(null);
        } else {
            RdmaException error = new RdmaException(errorKind, peer, op.describe(peer) + " failed: " + errorText);
            // Break first, so whoever sees this future fail also sees the connection broken; the
            // other operations fail inside fail(), after abort() stopped the device.
            fail(error);
            op.future().completeExceptionally(error);
        }
        if (slotted) {
            postInOrder();
        }
    }

    /**
     * Breaks the connection: every pending operation fails with {@code reason} after {@link #abort}
     * returned. Only the first reason counts; later calls do nothing.
     */
    public final void fail(RdmaException reason) {
        List<PendingOperation> victims;
        synchronized (lock) {
            if (failure != null || closed) {
                return;
            }
            failure = reason;
            victims = takeAll();
            aborted = true;
        }
        abort();
        for (PendingOperation op : victims) {
            op.future().completeExceptionally(new RdmaException(reason.kind(), peer,
                    op.describe(peer) + " failed: " + reason.getMessage(), reason));
        }
        onBroken(reason);
    }

    /**
     * Breaks the connection with {@link Kind#TIMEOUT} when an operation, posted or waiting, passed
     * its deadline at {@code nowNanos}. Returns whether it did. Called periodically by the device.
     */
    public final boolean expire(long nowNanos) {
        PendingOperation late;
        synchronized (lock) {
            if (failure != null || closed) {
                return false;
            }
            late = table.firstExpired(nowNanos);
            if (late == null) {
                for (PendingOperation op : waiting) {
                    if (op.expiredAt(nowNanos)) {
                        late = op;
                        break;
                    }
                }
            }
        }
        if (late == null) {
            return false;
        }
        fail(new RdmaException(Kind.TIMEOUT, peer, late.describe(peer) + " did not complete within "
                + settings.operationTimeout().toMillis() + " ms; the connection to " + peer + " is closed"));
        return true;
    }

    @Override
    public final void close() {
        List<PendingOperation> victims;
        boolean abortNow;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            victims = takeAll();
            abortNow = !aborted;
            aborted = true;
        }
        if (abortNow) {
            abort();
        }
        for (PendingOperation op : victims) {
            op.future().completeExceptionally(new RdmaException(Kind.CLOSED, peer,
                    op.describe(peer) + " failed: the connection was closed"));
        }
        release();
    }

    private List<PendingOperation> takeAll() {
        List<PendingOperation> all = new ArrayList<>(table.removeAll()); // the unposted ones hold slots too
        unposted.clear();
        all.addAll(waiting);
        waiting.clear();
        return all;
    }

    /** Whether the registration belongs to this connection's device. */
    protected abstract boolean acceptsLocal(RegisteredMemory local);

    /** How atomic the device's compare-and-swap is; {@link AtomicSupport#NONE} refuses them before posting. */
    @Override
    public abstract AtomicSupport atomics();

    /**
     * Posts one work request with the given id; its completion must later reach {@link #completed}.
     * Calls come one at a time, in call order (see the class comment), and may run concurrently with
     * {@link #abort}; after abort it must throw. A fenced operation ({@link PendingOperation#fenced})
     * must not start before the connection's earlier reads and atomics completed.
     */
    protected abstract void post(PendingOperation op, long wrId) throws RdmaException;

    /**
     * Stops the device from reading or writing this connection's buffers, synchronously (for verbs:
     * destroy the queue pair). Called once, outside the connection lock, before pending futures fail.
     */
    protected abstract void abort();

    /** Called once after the connection broke (not after a plain close); for bookkeeping. */
    protected void onBroken(RdmaException reason) {
    }

    /** Releases what remains after {@link #abort} once the connection is closed. */
    protected abstract void release();
}
