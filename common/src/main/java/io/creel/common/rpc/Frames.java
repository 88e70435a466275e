package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.IdentifiedRequest;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RequestType;
import io.creel.common.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/** Builds frames in the layout of {@link Frame}. The caller owns the returned buffer until it writes it. */
public final class Frames {
    private Frames() {
    }

    /**
     * How much a connection reads per system call: adapts to what arrives, from small metadata replies
     * up to a quarter of a block frame (Netty's default stops at 64 KiB, so a 1 MiB block took 16
     * reads and as many passes through the pipeline).
     */
    public static RecvByteBufAllocator receiveSizes() {
        return new AdaptiveRecvByteBufAllocator(64, 16 << 10, 256 << 10);
    }

    /** A decoder that cuts the stream into frames and rejects any frame longer than {@code maxFrame}. */
    public static FrameDecoder decoder(int maxFrame) {
        return new FrameDecoder(maxFrame);
    }

    /** Cuts frames; also tells whether part of a frame is waiting for the rest. */
    public static final class FrameDecoder extends LengthFieldBasedFrameDecoder {
        FrameDecoder(int maxFrame) {
            super(maxFrame, 0, Frame.LENGTH_FIELD, 0, Frame.LENGTH_FIELD, true);
            // A block-sized frame arrives in many socket reads; merging them would copy every byte once
            // more (and again each time the merge buffer grows). Composing them copies nothing.
            setCumulator(COMPOSITE_CUMULATOR);
        }

        /** Whether bytes of an incomplete frame are buffered. */
        public boolean hasPartialFrame() {
            return actualReadableBytes() > 0;
        }
    }

    /**
     * Refuses a reply whose flags say a newer wire protocol version than this release's: its layout may
     * differ, so it is not read at all (see {@link Frame}). Every client transport (creel:// and
     * rdma://) checks its replies here, so a mixed-release cluster is refused in one way and with one
     * message.
     *
     * @throws ProtocolException naming both versions and what to do
     */
    public static void checkReplyVersion(int flags) {
        int version = Frame.versionOf(flags);
        if (version > Frame.WIRE_VERSION) {
            throw new ProtocolException("the server replied in wire protocol version " + version
                    + "; this client (Creel " + io.creel.common.BuildInfo.current().version() + ") speaks version "
                    + Frame.WIRE_VERSION + ": the server is of a newer release; run one release across the cluster");
        }
    }

    /** Starts a frame: writes the header with a placeholder length. Finish with {@link #finish}. */
    public static ByteBuf begin(ByteBufAllocator alloc, int bodyHint, RequestType op, int flags, long requestId) {
        ByteBuf buf = alloc.ioBuffer(Frame.HEADER + bodyHint);
        buf.writeInt(0);
        buf.writeByte(op.code());
        buf.writeByte(flags | Frame.versionFlags());
        buf.writeLong(requestId);
        return buf;
    }

    /** Fills in the length field once the body is written. */
    public static ByteBuf finish(ByteBuf frame) {
        frame.setInt(0, frame.readableBytes() - Frame.LENGTH_FIELD);
        return frame;
    }

    /**
     * A request frame; an {@link IdentifiedRequest} is framed with {@link Frame#FLAG_IDENTIFIED} and its
     * identity before the body.
     */
    public static ByteBuf request(ByteBufAllocator alloc, RequestType op, long requestId, Message body) {
        int flags = body instanceof IdentifiedRequest ? Frame.FLAG_IDENTIFIED : 0;
        ByteBuf buf = begin(alloc, 64, op, flags, requestId);
        try {
            body.encode(buf);
            return finish(buf);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /** The error of a request {@link #request} could not encode, for every connection to report alike. */
    public static CreelException unencodable(RequestType op, RuntimeException cause) {
        return new CreelException(ErrorCode.INVALID_ARGUMENT, "cannot encode " + op + " request: " + cause.getMessage(),
                cause);
    }

    /** A successful response whose body is {@code body}'s encoding. */
    public static ByteBuf ok(ByteBufAllocator alloc, RequestType op, long requestId, Message body) {
        ByteBuf buf = begin(alloc, 64, op, Frame.FLAG_RESPONSE, requestId);
        try {
            buf.writeShort(Frame.STATUS_OK);
            body.encode(buf);
            return finish(buf);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /**
     * The header of a successful response whose payload of {@code payloadLength} bytes and verdict
     * ({@link Frame#VERDICT}) follow separately.
     */
    public static ByteBuf okHeader(ByteBufAllocator alloc, RequestType op, long requestId, int payloadLength) {
        ByteBuf buf = alloc.ioBuffer(Frame.HEADER + 2);
        buf.writeInt(Frame.HEADER_AFTER_LENGTH + 2 + payloadLength + Frame.VERDICT);
        buf.writeByte(op.code());
        buf.writeByte(Frame.FLAG_RESPONSE | Frame.versionFlags());
        buf.writeLong(requestId);
        buf.writeShort(Frame.STATUS_OK);
        return buf;
    }

    /** A failed response carrying the error's code and message. */
    public static ByteBuf error(ByteBufAllocator alloc, RequestType op, long requestId, CreelException error) {
        ByteBuf buf = begin(alloc, 128, op, Frame.FLAG_RESPONSE, requestId);
        buf.writeShort(error.code().code());
        String msg = error.getMessage() == null ? "" : error.getMessage();
        if (msg.length() > 2000) {
            msg = msg.substring(0, 2000) + "...";
        }
        Wire.writeString(buf, msg);
        return finish(buf);
    }
}
