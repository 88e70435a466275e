package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked primitives for message bodies. Every read checks that the bytes are there and
 * that lengths are sane, and throws {@link ProtocolException} otherwise, so a truncated or hostile
 * frame can never cause an out-of-bounds read or a huge allocation.
 */
public final class Wire {
    /** Longest string field on the wire, in bytes (a full path is at most 4096). */
    public static final int MAX_STRING_BYTES = 8192;
    /** Longest node content sent inline with a metadata message (see {@code creel.namenode.inline.max}). */
    public static final int MAX_INLINE_BYTES = 64 * 1024;

    private Wire() {
    }

    public static void need(ByteBuf in, int bytes, String field) {
        if (in.readableBytes() < bytes) {
            throw new ProtocolException("truncated message: " + field + " needs " + bytes + " bytes, "
                    + in.readableBytes() + " left");
        }
    }

    public static byte readByte(ByteBuf in, String field) {
        need(in, 1, field);
        return in.readByte();
    }

    public static boolean readBoolean(ByteBuf in, String field) {
        byte b = readByte(in, field);
        if (b != 0 && b != 1) {
            throw new ProtocolException("bad boolean in " + field + ": " + b);
        }
        return b == 1;
    }

    public static int readUnsignedShort(ByteBuf in, String field) {
        need(in, 2, field);
        return in.readUnsignedShort();
    }

    public static int readInt(ByteBuf in, String field) {
        need(in, 4, field);
        return in.readInt();
    }

    /** Reads an int that must lie in [min, max]. */
    public static int readInt(ByteBuf in, String field, int min, int max) {
        int v = readInt(in, field);
        if (v < min || v > max) {
            throw new ProtocolException(field + " out of range [" + min + ", " + max + "]: " + v);
        }
        return v;
    }

    public static long readLong(ByteBuf in, String field) {
        need(in, 8, field);
        return in.readLong();
    }

    /** Reads a long that must not be negative. */
    public static long readNonNegativeLong(ByteBuf in, String field) {
        long v = readLong(in, field);
        if (v < 0) {
            throw new ProtocolException(field + " must not be negative: " + v);
        }
        return v;
    }

    public static void writeString(ByteBuf out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("string too long for the wire: " + b.length + " bytes");
        }
        out.writeShort(b.length);
        out.writeBytes(b);
    }

    public static String readString(ByteBuf in, String field) {
        int len = readUnsignedShort(in, field);
        if (len > MAX_STRING_BYTES) {
            throw new ProtocolException(field + " longer than " + MAX_STRING_BYTES + " bytes: " + len);
        }
        need(in, len, field);
        String s = in.toString(in.readerIndex(), len, StandardCharsets.UTF_8);
        in.skipBytes(len);
        return s;
    }

    /** Writes optional bytes: an int length (-1 when absent), then the bytes. */
    public static void writeOptionalBytes(ByteBuf out, byte[] b) {
        if (b == null) {
            out.writeInt(-1);
            return;
        }
        if (b.length > MAX_INLINE_BYTES) {
            throw new IllegalArgumentException("inline data too long for the wire: " + b.length + " bytes");
        }
        out.writeInt(b.length);
        out.writeBytes(b);
    }

    /** Reads what {@link #writeOptionalBytes} wrote: {@code null} when absent. */
    public static byte[] readOptionalBytes(ByteBuf in, String field) {
        int len = readInt(in, field, -1, MAX_INLINE_BYTES);
        if (len < 0) {
            return null;
        }
        need(in, len, field);
        byte[] b = new byte[len];
        in.readBytes(b);
        return b;
    }

    public static void writeBoolean(ByteBuf out, boolean b) {
        out.writeByte(b ? 1 : 0);
    }

    /** Checks nothing is left after a message: trailing bytes mean the peer and we disagree on the format. */
    public static void expectEnd(ByteBuf in, String message) {
        if (in.isReadable()) {
            throw new ProtocolException(in.readableBytes() + " unexpected trailing bytes after " + message);
        }
    }
}
