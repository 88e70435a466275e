package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * Ready to Transfer PDU (controller to host): the controller asks for R2TL bytes of command CCCID's
 * data from offset R2TO, to be sent in H2CData PDUs tagged TTAG.
 */
public final class R2tPdu {
    public static final int OFFSET_CCCID = 8;
    public static final int OFFSET_TTAG = 10;
    public static final int OFFSET_R2TO = 12;
    public static final int OFFSET_R2TL = 16;

    private R2tPdu() {
    }

    public static int cccid(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_CCCID);
    }

    public static int ttag(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_TTAG);
    }

    public static long offset(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_R2TO);
    }

    public static long length(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_R2TL);
    }

    /** Appends an R2T header; the header digest is the caller's. */
    public static void encode(ByteBuf out, boolean headerDigest, int cccid, int ttag, long offset, long length) {
        CommonHeader.write(out, PduType.R2T, headerDigest ? CommonHeader.FLAG_HDGST : 0, 0,
                PduType.R2T.headerLength() + (headerDigest ? CommonHeader.DIGEST_LENGTH : 0));
        out.writeShortLE(cccid);
        out.writeShortLE(ttag);
        out.writeIntLE((int) offset);
        out.writeIntLE((int) length);
        out.writeIntLE(0);
    }
}
