package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * H2CData and C2HData PDUs (same layout): command capsule CID (CCCID), transfer tag (TTAG, from the
 * R2T; reserved in C2HData), data offset (DATAO) and data length (DATAL) within the command's
 * transfer, then header digest, padding to PDO, data and data digest.
 */
public final class DataPdu {
    public static final int OFFSET_CCCID = 8;
    public static final int OFFSET_TTAG = 10;
    public static final int OFFSET_DATAO = 12;
    public static final int OFFSET_DATAL = 16;

    private DataPdu() {
    }

    public static int cccid(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_CCCID);
    }

    public static int ttag(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_TTAG);
    }

    public static long dataOffset(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_DATAO);
    }

    public static long dataLength(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_DATAL);
    }

    /**
     * Appends the header of a data PDU whose data follows right after the header (and its digest),
     * as both sides do when the peer asked for no alignment (HPDA or CPDA 0).
     *
     * @param flags {@link CommonHeader#FLAG_LAST_PDU} and/or {@link CommonHeader#FLAG_SUCCESS}; digest
     *     flags are added here
     */
    public static void encodeHeader(ByteBuf out, PduType type, int flags, boolean headerDigest, boolean dataDigest,
            int cccid, int ttag, long dataOffset, int dataLength) {
        if (type != PduType.H2C_DATA && type != PduType.C2H_DATA) {
            throw new IllegalArgumentException(type + " is not a data PDU");
        }
        int hd = headerDigest ? CommonHeader.DIGEST_LENGTH : 0;
        int pdo = PduType.H2C_DATA.headerLength() + hd;
        long plen = (long) pdo + dataLength + (dataDigest ? CommonHeader.DIGEST_LENGTH : 0);
        CommonHeader.write(out, type, flags | (headerDigest ? CommonHeader.FLAG_HDGST : 0)
                | (dataDigest ? CommonHeader.FLAG_DDGST : 0), pdo, plen);
        out.writeShortLE(cccid);
        out.writeShortLE(ttag);
        out.writeIntLE((int) dataOffset);
        out.writeIntLE(dataLength);
        out.writeIntLE(0);
    }
}
