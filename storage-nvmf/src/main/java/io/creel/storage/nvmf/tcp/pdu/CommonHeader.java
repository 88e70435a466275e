package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * The 8-byte common header every NVMe/TCP PDU starts with: PDU-type, FLAGS, HLEN, PDO, PLEN
 * (little-endian). Static accessors over a {@link ByteBuf} at a base index; no state.
 */
public final class CommonHeader {
    /** Size of the common header. */
    public static final int LENGTH = 8;
    /** Size of a header or data digest. */
    public static final int DIGEST_LENGTH = 4;

    /** FLAGS: a header digest follows the header. */
    public static final int FLAG_HDGST = 0x01;
    /** FLAGS: a data digest follows the data. */
    public static final int FLAG_DDGST = 0x02;
    /** FLAGS (H2CData, C2HData): last data PDU of this transfer (of the R2T, or of the command). */
    public static final int FLAG_LAST_PDU = 0x04;
    /** FLAGS (C2HData): the command succeeded and no response capsule will follow. */
    public static final int FLAG_SUCCESS = 0x08;

    /** Byte offsets within the common header, also the FEI values for errors in these fields. */
    public static final int OFFSET_TYPE = 0;
    public static final int OFFSET_FLAGS = 1;
    public static final int OFFSET_HLEN = 2;
    public static final int OFFSET_PDO = 3;
    public static final int OFFSET_PLEN = 4;

    private CommonHeader() {
    }

    public static int type(ByteBuf b, int base) {
        return b.getUnsignedByte(base + OFFSET_TYPE);
    }

    public static int flags(ByteBuf b, int base) {
        return b.getUnsignedByte(base + OFFSET_FLAGS);
    }

    public static int hlen(ByteBuf b, int base) {
        return b.getUnsignedByte(base + OFFSET_HLEN);
    }

    public static int pdo(ByteBuf b, int base) {
        return b.getUnsignedByte(base + OFFSET_PDO);
    }

    /** PLEN, the whole PDU's length, as an unsigned value. */
    public static long plen(ByteBuf b, int base) {
        return b.getUnsignedIntLE(base + OFFSET_PLEN);
    }

    /** Appends a common header. */
    public static void write(ByteBuf out, PduType type, int flags, int pdo, long plen) {
        out.writeByte(type.code());
        out.writeByte(flags);
        out.writeByte(type.headerLength());
        out.writeByte(pdo);
        out.writeIntLE((int) plen);
    }
}
