package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * Initialize Connection Request (host to controller, 128 bytes): PDU format version, host PDU data
 * alignment (HPDA), the digests the host asks for, and MAXR2T.
 */
public final class IcReqPdu {
    public static final int OFFSET_PFV = 8;
    public static final int OFFSET_HPDA = 10;
    public static final int OFFSET_DGST = 11;
    public static final int OFFSET_MAXR2T = 12;
    /** DGST bit: header digest enable. */
    public static final int DGST_HEADER = 0x01;
    /** DGST bit: data digest enable. */
    public static final int DGST_DATA = 0x02;

    private IcReqPdu() {
    }

    /**
     * Appends an ICReq.
     *
     * @param maxR2t most outstanding R2Ts per command the host accepts, 0's based (0 = one)
     */
    public static void encode(ByteBuf out, boolean headerDigest, boolean dataDigest, int hpda, int maxR2t) {
        int start = out.writerIndex();
        CommonHeader.write(out, PduType.IC_REQ, 0, 0, PduType.IC_REQ.headerLength());
        out.writeShortLE(0);
        out.writeByte(hpda);
        out.writeByte((headerDigest ? DGST_HEADER : 0) | (dataDigest ? DGST_DATA : 0));
        out.writeIntLE(maxR2t);
        out.writeZero(start + PduType.IC_REQ.headerLength() - out.writerIndex());
    }

    public static int pfv(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_PFV);
    }

    public static int hpda(ByteBuf b) {
        return b.getUnsignedByte(OFFSET_HPDA);
    }

    public static boolean headerDigest(ByteBuf b) {
        return (b.getByte(OFFSET_DGST) & DGST_HEADER) != 0;
    }

    public static boolean dataDigest(ByteBuf b) {
        return (b.getByte(OFFSET_DGST) & DGST_DATA) != 0;
    }

    public static long maxR2t(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_MAXR2T);
    }
}
