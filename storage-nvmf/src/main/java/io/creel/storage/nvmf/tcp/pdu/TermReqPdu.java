package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * H2CTermReq and C2HTermReq PDUs: the sender hit a fatal transport error and will close the
 * connection. Carries the Fatal Error Status, the Fatal Error Information and up to 128 bytes of the
 * PDU header that caused it. No digests apply.
 */
public final class TermReqPdu {
    public static final int OFFSET_FES = 8;
    public static final int OFFSET_FEI = 10;
    /** Most bytes of the offending header a TermReq carries. */
    public static final int MAX_ERROR_DATA = 128;
    /** Largest TermReq PDU. */
    public static final int MAX_LENGTH = 24 + MAX_ERROR_DATA;

    private TermReqPdu() {
    }

    public static int fes(ByteBuf b) {
        return b.getUnsignedShortLE(OFFSET_FES);
    }

    public static long fei(ByteBuf b) {
        return b.getUnsignedIntLE(OFFSET_FEI);
    }

    /**
     * Appends a TermReq of {@code type} (H2C or C2H) reporting {@code status}; copies up to 128 readable
     * bytes of {@code offendingHeader} (may be null) without moving its reader index.
     */
    public static void encode(ByteBuf out, PduType type, FatalErrorStatus status, long fei, ByteBuf offendingHeader) {
        if (type != PduType.H2C_TERM_REQ && type != PduType.C2H_TERM_REQ) {
            throw new IllegalArgumentException(type + " is not a TermReq");
        }
        int errorData = offendingHeader == null ? 0 : Math.min(MAX_ERROR_DATA, offendingHeader.readableBytes());
        CommonHeader.write(out, type, 0, 0, type.headerLength() + errorData);
        out.writeShortLE(status.code());
        out.writeIntLE((int) fei);
        out.writeZero(type.headerLength() - 14);
        if (errorData > 0) {
            out.writeBytes(offendingHeader, offendingHeader.readerIndex(), errorData);
        }
    }
}
