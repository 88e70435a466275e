package io.creel.storage.rdma.rpc;

import com.ibm.darpc.DaRPCMessage;
import io.creel.common.protocol.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;

/**
 * One frame of Creel's protocol ({@link Frame}: length, opcode, flags, request id, body) as a DaRPC
 * message. DaRPC sizes every message buffer of a connection alike, by {@link #size()}, so a frame
 * larger than the capacity cannot travel: senders check {@link #fits} first. A received frame whose
 * length field does not fit what arrived is kept as malformed, for the receiver to refuse.
 */
final class FrameMessage implements DaRPCMessage {
    /** Bytes of every received message kept for {@link #raw()}: more than any fixed-size handshake message. */
    static final int RAW_MIN = 64;
    /** Bytes of a received non-frame kept for {@link #raw()}: more than the longest handshake message. */
    static final int RAW_MAX = 2048;

    private final byte[] bytes;
    private int length;
    private int received;

    /** A message of at most {@code capacity} frame bytes (the length field included). */
    FrameMessage(int capacity) {
        this.bytes = new byte[capacity];
    }

    /** Whether a frame of {@code frameBytes} (length field included) fits. */
    boolean fits(int frameBytes) {
        return frameBytes <= bytes.length;
    }

    /** Takes the readable bytes of {@code frame} (a whole frame, length field included), which must fit. */
    void set(ByteBuf frame) {
        int n = frame.readableBytes();
        if (!fits(n)) {
            throw new IllegalArgumentException("a frame of " + n + " bytes exceeds the message capacity " + bytes.length);
        }
        frame.getBytes(frame.readerIndex(), bytes, 0, n);
        length = n;
    }

    /** The frame received, after its length field, as a buffer of its own; null if it was malformed. */
    ByteBuf frameAfterLength() {
        if (length < Frame.LENGTH_FIELD) {
            return null;
        }
        return Unpooled.copiedBuffer(bytes, Frame.LENGTH_FIELD, length - Frame.LENGTH_FIELD);
    }

    /**
     * The bytes received, as they came, when they may not be a frame (the handshake's messages); a
     * view that is valid until the message is reused.
     */
    ByteBuf raw() {
        return Unpooled.wrappedBuffer(bytes, 0, received);
    }

    /** Bytes of the frame held (0 after a malformed one). */
    int length() {
        return length;
    }

    @Override
    public int write(ByteBuffer buffer) {
        buffer.put(bytes, 0, length);
        return length;
    }

    @Override
    public void update(ByteBuffer buffer) {
        int available = Math.min(buffer.remaining(), bytes.length);
        int frameLength = available >= Frame.LENGTH_FIELD ? buffer.getInt(buffer.position()) : -1;
        if (frameLength < 0 || frameLength > bytes.length - Frame.LENGTH_FIELD
                || frameLength + Frame.LENGTH_FIELD > available) {
            length = 0; // malformed, or a handshake message: the receiver decides
            received = Math.min(available, RAW_MAX);
        } else {
            length = frameLength + Frame.LENGTH_FIELD;
            received = Math.max(length, Math.min(available, RAW_MIN));
        }
        buffer.get(bytes, 0, received);
    }

    @Override
    public int size() {
        return bytes.length;
    }
}
