package io.creel.storage.rdma;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A reliable connection to one peer, for one-sided reads and writes of the peer's registered memory.
 *
 * <p>Many operations may be in flight; up to the configured queue depth are posted to the device,
 * further ones wait in order and are posted as earlier ones complete. Operations reach the device
 * in the order of the calls (as far as one caller's calls are ordered), so the reliable connection
 * executes them at the peer in that order; a fenced operation ({@link #readFenced}, or a
 * compare-and-swap with {@code fenced}) also waits until the connection's earlier reads and
 * atomics have completed. Every operation has a deadline
 * ({@link RdmaSettings#operationTimeout()}, counted from the call).
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

    /**
     * Like {@link #read}, but the device starts this read only once every earlier READ and atomic
     * of this connection has completed ({@code IBV_SEND_FENCE}): it sees the peer's memory as it is
     * after them. A reader that checks a word, reads data, then checks the word again fences the
     * last two.
     */
    CompletableFuture<Void> readFenced(RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, int length);

    /**
     * Atomically compares the peer's 8-byte word at {@code remoteOffset} with {@code expected} and,
     * if equal, replaces it with {@code replacement}; the word's previous value lands in
     * {@code local} at {@code localOffset} in this machine's byte order. Both addresses must be
     * 8-byte aligned, the peer's memory registered {@link MemoryAccess#REMOTE_ATOMIC}, and the device
     * able to ({@link #atomics()}); otherwise the future fails with
     * {@link RdmaException.Kind#INVALID_ARGUMENT} and nothing is posted.
     *
     * @param fenced start only once the connection's earlier reads and atomics completed
     */
    CompletableFuture<Void> compareAndSwap(RegisteredMemory local, int localOffset, RemoteRegion remote,
            long remoteOffset, long expected, long replacement, boolean fenced);

    /** How atomic this connection's compare-and-swap is; {@link AtomicSupport#NONE} if it has none. */
    AtomicSupport atomics();

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
