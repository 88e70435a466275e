package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * Initialize Connection Response (controller to host, 128 bytes): PDU format version, controller PDU
 * data alignment (CPDA), the digests enabled for this connection, and MAXH2CDATA.
 */
public final class IcRespPdu {
    public static final int OFFSET_PFV = 8;
    public static final int OFFSET_CPDA = 10;
    public static final int OFFSET_DGST = 11;
    public static final int OFFSET_MAXH2CDATA = 12;
    /** The smallest MAXH2CDATA a controller may report. */
    public static final int MIN_MAXH2CDATA = 4096;

    private IcRespPdu() {
    }

    /** Appends an ICResp (a controller sends it; the test target uses this). */
    public static void encode(ByteBuf out, int pfv, boolean headerDigest, boolean dataDigest, int cpda,
            long maxH2cData) {
        int start = out.writerIndex();
        CommonHeader.write(out, PduType.IC_RESP, 0, 0, PduType.IC_RESP.headerLength());
        out.writeShortLE(pfv);
        out.writeByte(cpda);
        out.writeByte((headerDigest ? IcReqPdu.DGST_HEADER : 0) | (dataDigest ? IcReqPdu.DGST_DATA : 0));
        out.writeIntLE((int) maxH2cData);
        out.writeZero(start + PduType.IC_RESP.headerLength() - out.writerIndex());
    }

    public static int pfv(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_PFV);
    }

    /** CPDA: data in host-to-controller PDUs must start at a multiple of (CPDA + 1) * 4 bytes. */
    public static int cpda(ByteBuf b) {
        return b.getUnsignedByte(OFFSET_CPDA);
    }

    public static boolean headerDigest(ByteBuf b) {
        return (b.getByte(OFFSET_DGST) & IcReqPdu.DGST_HEADER) != 0;
    }

    public static boolean dataDigest(ByteBuf b) {
        return (b.getByte(OFFSET_DGST) & IcReqPdu.DGST_DATA) != 0;
    }

    /** MAXH2CDATA: the most data one H2CData PDU may carry. */
    public static long maxH2cData(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_MAXH2CDATA);
    }
}
