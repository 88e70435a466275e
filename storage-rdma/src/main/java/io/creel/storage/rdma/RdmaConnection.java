package io.creel.storage.rdma;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A reliable connection to one peer, for one-sided reads and writes of the peer's registered memory.
 *
 * <p>Many operations may be in flight; up to the configured queue depth are posted to the device,
 * further ones wait in order and are posted as earlier ones complete. Every operation has a
 * deadline ({@link RdmaSettings#operationTimeout()}, counted from the call).
 *
 * <p>Futures complete on the device's completion thread: callbacks must not block (hand heavy work
 * to another executor). A completed read has placed its bytes in the local buffer; a completed
 * write has been acknowledged by the peer's device.
 *
 * <p>Failure: the first failed operation (an error completion, a timeout, the peer going away)
 * breaks the connection: the device is stopped from touching any of this connection's local
 * buffers <em>before</em> any future fails, so a caller may reuse its buffers as soon as its
 * future completed, successfully or not. Every later call fails at once with the same reason.
 */
public interface RdmaConnection extends AutoCloseable {
    /** The peer this connection reaches. */
    InetSocketAddress peer();

    /**
     * Reads {@code length} bytes at {@code remoteOffset} of the peer's region into {@code local} at
     * {@code localOffset}, with one RDMA READ. Argument errors fail the returned future with
     * {@link RdmaException.Kind#INVALID_ARGUMENT} and post nothing.
     */
    CompletableFuture<Void> read(RegisteredMemory local, int localOffset, RemoteRegion remote, long remoteOffset,
            int length);

    /**
     * Writes {@code length} bytes of {@code local} at {@code localOffset} to the peer's region at
     * {@code remoteOffset}, with one RDMA WRITE. Argument errors as for {@link #read}.
     */
    CompletableFuture<Void> write(RegisteredMemory local, int localOffset, RemoteRegion remote, long remoteOffset,
            int length);

    /** Operations posted to the device and not yet completed (waiting ones not counted). */
    int inFlight();

    /** True until the connection broke or was closed. */
    boolean isOpen();

    /** Why the connection broke, or null while it is open or after a plain close. */
    RdmaException failure();

    /** Disconnects; operations still in flight fail with {@link RdmaException.Kind#CLOSED}. Idempotent. */
    @Override
    void close();
}
