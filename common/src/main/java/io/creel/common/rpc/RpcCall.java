package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.RequestType;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * One request received by an {@link RpcServer}. Exactly one of the reply methods must be called,
 * from any thread. The {@link #body()} buffer is owned by the server and valid only until
 * {@link RequestHandler#handle} returns; a handler that needs it longer retains it and releases it
 * itself.
 */
public final class RpcCall {
    private final RpcPeer peer;
    private final RequestType opcode;
    private final long requestId;
    /** The request's identity across connections (a request that may be retried), or null. */
    private final RequestIdentity identity;
    private final ByteBuf body;
    private final RpcProbe probe;
    /** When the request arrived; 0 when nothing measures. */
    private final long arrived;
    /** Runs once the reply is handed to the peer (the server's count of requests in flight); or null. */
    private final Runnable replied;

    RpcCall(RpcPeer peer, RequestType opcode, long requestId, RequestIdentity identity, ByteBuf body, RpcProbe probe,
            Runnable replied) {
        this.peer = peer;
        this.opcode = opcode;
        this.requestId = requestId;
        this.identity = identity;
        this.body = body;
        this.probe = probe;
        this.arrived = probe == RpcProbe.NONE ? 0 : System.nanoTime();
        this.replied = replied;
    }

    private void answered(CreelException error) {
        if (probe != RpcProbe.NONE) {
            probe.answered(opcode, error, System.nanoTime() - arrived);
        }
    }

    private void replied() {
        if (replied != null) {
            replied.run();
        }
    }

    /**
     * What the request asks for: a core {@link io.creel.common.protocol.Opcode}, or a tier's own
     * {@link io.creel.common.protocol.TierOpcode} (compare with {@code ==}; a handler that switches
     * over core opcodes checks {@code instanceof Opcode} first).
     */
    public RequestType opcode() {
        return opcode;
    }

    public long requestId() {
        return requestId;
    }

    /**
     * The identity the client gave this request ({@link io.creel.common.protocol.Frame#FLAG_IDENTIFIED}):
     * the same on every retry of it, over any connection; {@code null} when it gave none.
     */
    public RequestIdentity identity() {
        return identity;
    }

    public ByteBuf body() {
        return body;
    }

    /** The client the request came from, one per connection (for connection-scoped state such as leases). */
    public RpcPeer peer() {
        return peer;
    }

    public void reply(Message message) {
        answered(null);
        peer.send(Frames.ok(peer.alloc(), opcode, requestId, message));
        replied();
    }

    /**
     * Replies with raw payload bytes after the status, already known to be valid (verdict 0, see
     * {@link io.creel.common.protocol.Frame}); takes ownership of {@code payload}.
     */
    public void replyPayload(ByteBuf payload) {
        answered(null);
        ByteBuf header = Frames.okHeader(peer.alloc(), opcode, requestId, payload.readableBytes());
        ByteBuf verdict = peer.alloc().ioBuffer(Frame.VERDICT).writeShort(0);
        // One write per frame: replies may come from several threads, and two writes could interleave.
        peer.send(peer.alloc().compositeDirectBuffer(3).addComponents(true, header, payload, verdict));
        replied();
    }

    /**
     * Replies with the bytes of {@code memory} (position to limit) sent straight from it, without
     * copying them into a buffer first; {@code check} decides, once the last of them has been written
     * to the socket, whether they were valid, and its verdict follows them. {@code memory} must stay
     * readable until the connection has sent or dropped the reply, which {@link PayloadCheck#released}
     * says (exactly once). A transport that cannot send from memory copies it first
     * ({@link RpcPeer#send(ByteBuf, ByteBuffer, PayloadCheck)}).
     */
    public void replyPayload(ByteBuffer memory, PayloadCheck check) {
        answered(null);
        peer.send(Frames.okHeader(peer.alloc(), opcode, requestId, memory.remaining()), memory, check);
        replied();
    }

    public void fail(CreelException error) {
        answered(error);
        peer.send(Frames.error(peer.alloc(), opcode, requestId, error));
        replied();
    }

    /** Replies with the outcome of a failed computation, unwrapping to its CreelException. */
    public void fail(Throwable t) {
        fail(CreelException.unwrap(t));
    }
}
