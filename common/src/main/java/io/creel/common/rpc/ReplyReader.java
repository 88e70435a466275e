package io.creel.common.rpc;

import io.creel.common.protocol.Frame;
import io.creel.common.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * Cuts the bytes a client connection receives into reply frames. The payload of a successful reply
 * to a request that named a destination ({@link RpcClient#callInto}) goes straight into that
 * destination as it arrives — no frame is assembled for it — and while it does, the connection's
 * socket reads are lent the destination's own memory ({@link #lend}), so for a direct destination the
 * kernel's copy is the only one; the sender's verdict after the payload (see
 * {@link io.creel.common.protocol.Frame}) then decides the request. Every other reply is handed to its
 * request whole.
 *
 * <p>Runs on the connection's event loop, as do the requests' timeouts: once a request has failed,
 * nothing more is written into its destination (the caller owns it again); the rest of that reply
 * is read and dropped.
 */
final class ReplyReader extends ChannelInboundHandlerAdapter {
    /** What every reply frame starts with: length field, opcode, flags, request id, status. */
    static final int HEAD = Frame.HEADER + 2;
    /** Payload still to come below which a read is not lent the destination: a copy costs less. */
    static final int MIN_LEND = 16 << 10;

    private enum State { HEAD, BODY, PLACE, VERDICT }

    /** The connection's client; made once the channel exists, and nothing arrives before it asks. */
    private final Supplier<RpcClient> clientOf;
    private final int maxFrame;
    private final ByteBuf head = Unpooled.buffer(HEAD, HEAD);
    private State state = State.HEAD;
    /** Bytes of the current frame not yet read (BODY, PLACE). */
    private int remaining;
    private long requestId;
    private int status;
    /** BODY: the frame's body after the status, being assembled when it spans reads. */
    private ByteBuf body;
    /** PLACE: the request whose destination the payload goes into, and how much of it is there. */
    private RpcClient.Pending<?> placement;
    private int placed;
    /** The buffer last lent to a socket read, wrapping the destination's memory. */
    private ByteBuf lent;

    ReplyReader(Supplier<RpcClient> client, int maxFrame) {
        this.clientOf = client;
        this.maxFrame = maxFrame;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (in == lent) {
                lent = null;
                advancePlacement(in.readableBytes()); // the socket wrote them into the destination itself
                return;
            }
            while (in.isReadable()) {
                switch (state) {
                    case HEAD -> readHead(in);
                    case BODY -> readBody(in);
                    case PLACE -> place(in);
                    case VERDICT -> readVerdict(in);
                    default -> throw new IllegalStateException(state.name());
                }
            }
        } catch (ProtocolException e) {
            clientOf.get().protocolError(e.getMessage());
            ctx.close();
        } finally {
            in.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseBody();
        RpcClient client = clientOf.get();
        if (client != null) {
            client.connectionLost();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        RpcClient client = clientOf.get();
        if (client != null) {
            client.connectionFailed(cause);
        }
        ctx.close();
    }

    /**
     * A buffer over the next bytes of the payload being placed, for the socket to read into, or
     * {@code null} when no payload is being placed into a direct destination (then the read gets a
     * buffer of its own). Its capacity ends where the payload ends, so a read never takes bytes of
     * the next frame.
     */
    ByteBuf lend() {
        if (state != State.PLACE || remaining < MIN_LEND || !placement.waiting() || !placement.target().isDirect()) {
            return null;
        }
        ByteBuffer target = placement.target();
        lent = Unpooled.wrappedBuffer(target.slice(target.position() + placed, remaining)).clear();
        return lent;
    }

    private void readHead(ByteBuf in) {
        in.readBytes(head, Math.min(in.readableBytes(), head.writableBytes()));
        if (head.isWritable()) {
            return;
        }
        int length = head.getInt(0);
        if (length < HEAD - Frame.LENGTH_FIELD || length > maxFrame) {
            throw new ProtocolException("reply frame of " + length + " bytes (a reply is " + (HEAD - Frame.LENGTH_FIELD)
                    + " to " + maxFrame + " bytes)");
        }
        int flags = head.getUnsignedByte(Frame.LENGTH_FIELD + 1);
        if ((flags & Frame.FLAG_RESPONSE) == 0) {
            throw new ProtocolException("server sent a request frame");
        }
        Frames.checkReplyVersion(flags);
        requestId = head.getLong(Frame.LENGTH_FIELD + 2);
        status = head.getUnsignedShort(Frame.HEADER);
        remaining = length - (HEAD - Frame.LENGTH_FIELD);
        head.clear();
        placement = status == Frame.STATUS_OK && remaining >= Frame.VERDICT
                ? clientOf.get().placement(requestId, remaining - Frame.VERDICT) : null;
        if (placement != null) {
            state = State.PLACE;
            placed = 0;
            remaining -= Frame.VERDICT; // the payload; the verdict after it is read on its own
            if (remaining == 0) {
                state = State.VERDICT;
            }
        } else {
            state = State.BODY;
            if (remaining == 0) {
                deliver(Unpooled.EMPTY_BUFFER);
            }
        }
    }

    private void readBody(ByteBuf in) {
        if (body == null && in.readableBytes() >= remaining) {
            ByteBuf whole = in.readRetainedSlice(remaining); // the usual case: a small reply within one read
            deliver(whole);
            return;
        }
        if (body == null) {
            body = in.alloc().buffer(remaining, remaining);
        }
        int n = Math.min(in.readableBytes(), remaining);
        body.writeBytes(in, n);
        remaining -= n;
        if (remaining == 0) {
            ByteBuf complete = body;
            body = null;
            deliver(complete);
        }
    }

    /** Hands a whole reply body (after the status) to its request; releases it. */
    private void deliver(ByteBuf rest) {
        state = State.HEAD;
        remaining = 0;
        try {
            clientOf.get().onReply(requestId, status, rest);
        } finally {
            rest.release();
        }
    }

    private void place(ByteBuf in) {
        int n = Math.min(in.readableBytes(), remaining);
        if (placement.waiting()) {
            ByteBuffer target = placement.target();
            in.getBytes(in.readerIndex(), target.slice(target.position() + placed, n));
        }
        in.skipBytes(n);
        advancePlacement(n);
    }

    private void advancePlacement(int n) {
        placed += n;
        remaining -= n;
        if (remaining == 0) {
            state = State.VERDICT;
        }
    }

    /** The sender's verdict on the payload just placed: the request succeeds, or fails with its code. */
    private void readVerdict(ByteBuf in) {
        in.readBytes(head, Math.min(in.readableBytes(), Frame.VERDICT - head.writerIndex()));
        if (head.writerIndex() < Frame.VERDICT) {
            return;
        }
        int verdict = head.getUnsignedShort(0);
        head.clear();
        RpcClient.Pending<?> p = placement;
        placement = null;
        state = State.HEAD;
        clientOf.get().placed(requestId, p, verdict);
    }

    private void releaseBody() {
        if (body != null) {
            body.release();
            body = null;
        }
    }
}
