package io.creel.storage.rdma;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One RDMA device as a process uses it: opened through the IP address of its network interface,
 * with one protection domain for all memory and connections, and the threads that serve it.
 *
 * <p>Memory registered here can be used with every connection of the same device. Closing the
 * device closes its connections and listeners and deregisters what is still registered.
 */
public interface RdmaDevice extends AutoCloseable {
    /** The device's name as the system knows it ("rxe0", "mlx5_0"), or a descriptive name for a fake. */
    String name();

    /** The local IP address the device was opened with. */
    InetAddress address();

    /**
     * Registers a direct buffer (its whole capacity) for the given access.
     *
     * @throws RdmaException {@link RdmaException.Kind#INVALID_ARGUMENT} for a heap or empty buffer,
     *         {@link RdmaException.Kind#NOT_AVAILABLE} when the device refuses (for example too much
     *         pinned memory: the message says so)
     */
    RegisteredMemory register(ByteBuffer buffer, MemoryAccess access) throws RdmaException;

    /** Starts accepting connections on this device's address and the given port (0: any free port). */
    RdmaListener listen(int port) throws RdmaException;

    /**
     * Like {@link #listen(int)}, admitting only connect requests that pass {@code gate} (with a cluster
     * secret: that prove it in connection setup, {@link ConnectionAdmission}); the others are rejected
     * before any queue pair of theirs is usable.
     */
    RdmaListener listen(int port, ConnectionAdmission.Gate gate) throws RdmaException;

    /**
     * Connects to a peer's listener. The future fails with an {@link RdmaException} naming the peer:
     * {@link RdmaException.Kind#UNREACHABLE} (refused, no route), {@link RdmaException.Kind#TIMEOUT}
     * (after {@link RdmaSettings#connectTimeout()}), {@link RdmaException.Kind#CLOSED}.
     */
    CompletableFuture<RdmaConnection> connect(InetSocketAddress peer);

    /**
     * Like {@link #connect(InetSocketAddress)}, proving the cluster secret in connection setup when
     * {@code auth} is not null ({@link ConnectionAdmission}); a listener that refuses fails the future
     * with {@link RdmaException.Kind#REFUSED} and its reason.
     */
    CompletableFuture<RdmaConnection> connect(InetSocketAddress peer,
                                              io.creel.common.security.ClientAuthentication auth);

    /**
     * How atomic the device's compare-and-swap is ({@link AtomicSupport#NONE}: it has none, and
     * memory cannot be registered {@link MemoryAccess#REMOTE_ATOMIC}).
     */
    AtomicSupport atomics();

    /** Whether the device is open. */
    boolean isOpen();

    /** Closes connections, listeners and registrations, then the device. Idempotent. */
    @Override
    void close();
}
