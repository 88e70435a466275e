package io.creel.storage.rdma.inflight;

import io.creel.storage.rdma.RdmaOperation;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * One read or write from the call until its completion: what to move, where, its deadline and the
 * future its caller waits on. Immutable except for the future.
 */
public final class PendingOperation {
    private final RdmaOperation operation;
    private final RegisteredMemory local;
    private final int localOffset;
    private final RemoteRegion remote;
    private final long remoteOffset;
    private final int length;
    private final long deadlineNanos;
    private final CompletableFuture<Void> future = new CompletableFuture<>();

    public PendingOperation(RdmaOperation operation, RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length, long deadlineNanos) {
        this.operation = operation;
        this.local = local;
        this.localOffset = localOffset;
        this.remote = remote;
        this.remoteOffset = remoteOffset;
        this.length = length;
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

    /** The remote virtual address of the first byte moved. */
    public long remoteAddress() {
        return remote.address() + remoteOffset;
    }

    /** The instant (on the connection's nanosecond clock) by which the operation must complete. */
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
        String direction = operation == RdmaOperation.READ ? " from " : " to ";
        return "RDMA " + operation + " of " + length + " bytes" + direction + peer + " (offset " + remoteOffset + " of "
                + remote + ")";
    }
}
