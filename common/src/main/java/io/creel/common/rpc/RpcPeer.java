package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client at the other end of one server connection, whatever carries it ({@code creel://} over
 * Netty, {@code rdma://} over DaRPC). Handlers meet it as {@link RpcCall#peer()} and in
 * {@link RequestHandler#connectionClosed}: it names the connection for connection-scoped state (a
 * namenode's write leases) and is the same object for the connection's whole life, so it can be a
 * map key. Handlers reply through {@link RpcCall}; the {@code send} methods are the transport's half
 * of that, which {@link RpcCall} calls.
 */
public interface RpcPeer {
    /** Who is at the other end, for log lines ("/10.0.2.15:51234"). */
    String remote();

    /**
     * Who the peer proved to be in the authentication handshake ({@link io.creel.common.security.Identity#CLUSTER}
     * for the cluster secret, else a credential's identity); {@code null} on a server without
     * authentication.
     */
    default io.creel.common.security.Identity identity() {
        return null;
    }

    /** Allocates the buffers of replies (and anything else sent to this peer). */
    ByteBufAllocator alloc();

    /** Whether the connection is still open: false once it has closed or is closing. */
    boolean isOpen();

    /**
     * Runs {@code task} after {@code delay} on this connection's timer (a Netty connection's event
     * loop). Connection-scoped timers live here so that they run where the connection's other work
     * does, and a test can drive them.
     *
     * @throws java.util.concurrent.RejectedExecutionException when the timer has stopped (its
     *                                                         transport is shutting down)
     */
    ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit);

    /**
     * Sends one whole reply frame (length field first), taking ownership of it. Called from any
     * thread; one call is one frame on the wire, never interleaved with another's.
     */
    void send(ByteBuf frame);

    /**
     * Sends a payload reply whose payload is {@code memory} (position to limit), followed by the
     * verdict {@code check} gives once the payload has left; {@code header} (owned from here on) is
     * the frame up to and including its OK status. Calls {@link PayloadCheck#released} exactly once,
     * when {@code memory} is no longer needed.
     *
     * <p>This default copies the payload into a buffer, checks it once copied and sends one frame; a
     * transport that can send straight from the memory overrides it.
     */
    default void send(ByteBuf header, ByteBuffer memory, PayloadCheck check) {
        ByteBuf payload = null;
        ByteBuf verdict;
        try {
            payload = alloc().ioBuffer(memory.remaining()).writeBytes(memory.slice());
            CreelException invalid = check.afterSending();
            verdict = alloc().ioBuffer(Frame.VERDICT)
                    .writeShort(invalid == null ? Frame.STATUS_OK : invalid.code().code());
        } catch (RuntimeException e) {
            header.release();
            if (payload != null) {
                payload.release();
            }
            throw e;
        } finally {
            check.released();
        }
        send(alloc().compositeDirectBuffer(3).addComponents(true, header, payload, verdict));
    }
}
