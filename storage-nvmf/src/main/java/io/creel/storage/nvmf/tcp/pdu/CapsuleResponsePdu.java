package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;

/** Response Capsule PDU (controller to host): common header and the 16-byte CQE. */
public final class CapsuleResponsePdu {
    /** Offset of the CQE within the PDU. */
    public static final int OFFSET_CQE = CommonHeader.LENGTH;

    private CapsuleResponsePdu() {
    }

    /** Appends the common header and a zeroed CQE, returning the CQE's index; the header digest is the caller's. */
    public static int encodeHeader(ByteBuf out, boolean headerDigest) {
        CommonHeader.write(out, PduType.CAPSULE_RESP, headerDigest ? CommonHeader.FLAG_HDGST : 0, 0,
                PduType.CAPSULE_RESP.headerLength() + (headerDigest ? CommonHeader.DIGEST_LENGTH : 0));
        int cqe = out.writerIndex();
        out.writeZero(16);
        return cqe;
    }
}
