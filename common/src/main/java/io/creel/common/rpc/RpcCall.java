package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

/**
 * One request received by an {@link RpcServer}. Exactly one of the reply methods must be called,
 * from any thread. The {@link #body()} buffer is owned by the server and valid only until
 * {@link RequestHandler#handle} returns; a handler that needs it longer retains it and releases it
 * itself.
 */
public final class RpcCall {
    private final Channel channel;
    private final Opcode opcode;
    private final long requestId;
    private final ByteBuf body;

    RpcCall(Channel channel, Opcode opcode, long requestId, ByteBuf body) {
        this.channel = channel;
        this.opcode = opcode;
        this.requestId = requestId;
        this.body = body;
    }

    public Opcode opcode() {
        return opcode;
    }

    public long requestId() {
        return requestId;
    }

    public ByteBuf body() {
        return body;
    }

    /** The connection the request came on (for connection-scoped state such as leases). */
    public Channel channel() {
        return channel;
    }

    public void reply(Message message) {
        channel.writeAndFlush(Frames.ok(channel.alloc(), opcode, requestId, message), channel.voidPromise());
    }

    /** Replies with raw payload bytes after the status; takes ownership of {@code payload}. */
    public void replyPayload(ByteBuf payload) {
        ByteBuf header = Frames.okHeader(channel.alloc(), opcode, requestId, payload.readableBytes());
        // One write per frame: replies may come from several threads, and two writes could interleave.
        channel.writeAndFlush(channel.alloc().compositeDirectBuffer(2).addComponents(true, header, payload),
                channel.voidPromise());
    }

    public void fail(CreelException error) {
        channel.writeAndFlush(Frames.error(channel.alloc(), opcode, requestId, error), channel.voidPromise());
    }

    /** Replies with the outcome of a failed computation, unwrapping to its CreelException. */
    public void fail(Throwable t) {
        fail(CreelException.unwrap(t));
    }
}
