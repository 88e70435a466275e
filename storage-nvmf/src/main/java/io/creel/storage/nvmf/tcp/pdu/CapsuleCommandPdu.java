package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/**
 * Command Capsule PDU (host to controller): common header, the 64-byte SQE, then optionally a
 * header digest, padding up to PDO, in-capsule data and a data digest.
 */
public final class CapsuleCommandPdu {
    /** Offset of the SQE within the PDU. */
    public static final int OFFSET_SQE = CommonHeader.LENGTH;

    private CapsuleCommandPdu() {
    }

    /**
     * Where in-capsule data starts: after the header (and its digest), rounded up to the controller's
     * alignment of (CPDA + 1) * 4 bytes.
     */
    public static int dataOffset(boolean headerDigest, int cpda) {
        int end = PduType.CAPSULE_CMD.headerLength() + (headerDigest ? CommonHeader.DIGEST_LENGTH : 0);
        int align = (cpda + 1) * 4;
        return (end + align - 1) / align * align;
    }

    /**
     * Appends the common header and a zeroed SQE, returning the index of the SQE for the caller to
     * fill. The header digest (if any), padding, data and data digest are the caller's to append.
     */
    public static int encodeHeader(ByteBuf out, boolean headerDigest, boolean dataDigest, int cpda,
            int dataLength) {
        int flags = headerDigest ? CommonHeader.FLAG_HDGST : 0;
        long plen;
        int pdo;
        if (dataLength > 0) {
            pdo = dataOffset(headerDigest, cpda);
            plen = (long) pdo + dataLength + (dataDigest ? CommonHeader.DIGEST_LENGTH : 0);
            flags |= dataDigest ? CommonHeader.FLAG_DDGST : 0;
        } else {
            pdo = 0;
            plen = PduType.CAPSULE_CMD.headerLength() + (headerDigest ? CommonHeader.DIGEST_LENGTH : 0);
        }
        CommonHeader.write(out, PduType.CAPSULE_CMD, flags, pdo, plen);
        int sqe = out.writerIndex();
        out.writeZero(64);
        return sqe;
    }
}
