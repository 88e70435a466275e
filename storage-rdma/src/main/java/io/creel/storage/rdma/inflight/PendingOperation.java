package io.creel.storage.rdma.inflight;

import io.creel.common.inflight.InFlightTable;
import io.creel.storage.rdma.RdmaOperation;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * One operation from the call until its completion: what to move, where, whether it waits for the
 * connection's earlier reads and atomics (a fence), a compare-and-swap's two values, its deadline and
 * the future its caller waits on. Immutable except for the future.
 */
public final class PendingOperation implements InFlightTable.Deadlined {
    private final RdmaOperation operation;
    private final RegisteredMemory local;
    private final int localOffset;
    private final RemoteRegion remote;
    private final long remoteOffset;
    private final int length;
    private final boolean fenced;
    private final long compare;
    private final long swap;
    private final long deadlineNanos;
    private final CompletableFuture<Void> future = new CompletableFuture<>();

    /** A read or write, not fenced. */
    public PendingOperation(RdmaOperation operation, RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length, long deadlineNanos) {
        this(operation, local, localOffset, remote, remoteOffset, length, false, 0, 0, deadlineNanos);
    }

    /**
     * Any operation.
     *
     * @param fenced  the device starts it only after the connection's earlier reads and atomics completed
     * @param compare a compare-and-swap's expected value (ignored otherwise)
     * @param swap    a compare-and-swap's replacement (ignored otherwise)
     */
    public PendingOperation(RdmaOperation operation, RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length, boolean fenced, long compare, long swap, long deadlineNanos) {
        this.operation = operation;
        this.local = local;
        this.localOffset = localOffset;
        this.remote = remote;
        this.remoteOffset = remoteOffset;
        this.length = length;
        this.fenced = fenced;
        this.compare = compare;
        this.swap = swap;
        this.deadlineNanos = deadlineNanos;
    }

    public RdmaOperation operation() {
        return operation;
    }

    public RegisteredMemory local() {
        return local;
    }

    public int localOffset() {
        return localOffset;
    }

    public RemoteRegion remote() {
        return remote;
    }

    public long remoteOffset() {
        return remoteOffset;
    }

    public int length() {
        return length;
    }

    /** Whether the device must finish the connection's earlier reads and atomics first. */
    public boolean fenced() {
        return fenced;
    }

    /** A compare-and-swap's expected value. */
    public long compare() {
        return compare;
    }

    /** A compare-and-swap's replacement value. */
    public long swap() {
        return swap;
    }

    /** The remote virtual address of the first byte moved. */
    public long remoteAddress() {
        return remote.address() + remoteOffset;
    }

    /** The instant (on the connection's nanosecond clock) by which the operation must complete. */
    @Override
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** True when the deadline lies before {@code nowNanos}. */
    public boolean expiredAt(long nowNanos) {
        return nowNanos - deadlineNanos > 0;
    }

    public CompletableFuture<Void> future() {
        return future;
    }

    /** "RDMA READ of 4096 bytes from 10.0.2.15:7000 (offset 8192 of RemoteRegion[...])". */
    public String describe(InetSocketAddress peer) {
        String direction = operation == RdmaOperation.WRITE ? " to " : operation == RdmaOperation.READ ? " from " : " at ";
        return "RDMA " + operation + " of " + length + " bytes" + direction + peer + " (offset " + remoteOffset + " of "
                + remote + ")";
    }
}
