package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.IcReqPdu;
import io.creel.storage.nvmf.tcp.pdu.IcRespPdu;
import io.creel.storage.nvmf.tcp.pdu.PduException;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Connection setup of a queue pair (ICReq/ICResp): what the host asks for, and what a controller's
 * ICResp settles once it is found acceptable.
 *
 * @param headerDigest        header digests on
 * @param dataDigest          data digests on
 * @param cpda                the controller's PDU data alignment
 * @param maxH2cData          most data one H2CData PDU carries: the controller's MAXH2CDATA cut to a
 *                            multiple of 4, so the data of every PDU stays dword-aligned
 * @param maxH2cDataAnswered  the MAXH2CDATA the controller answered, for logs
 */
record IcNegotiation(boolean headerDigest, boolean dataDigest, int cpda, long maxH2cData, long maxH2cDataAnswered) {
    /** The ICReq asking for the digests of {@code options}. */
    static ByteBuf icReq(ByteBufAllocator alloc, NvmeTcpOptions options) {
        ByteBuf icreq = alloc.buffer(PduType.IC_REQ.headerLength());
        IcReqPdu.encode(icreq, options.headerDigest(), options.dataDigest(), 0, 0);
        return icreq;
    }

    /** What the ICResp {@code h} settles; a PduException naming the field when this host cannot accept it. */
    static IcNegotiation accept(ByteBuf h, NvmeTcpOptions options) throws PduException {
        int pfv = IcRespPdu.pfv(h);
        if (pfv != 0) {
            throw new PduException(FatalErrorStatus.UNSUPPORTED_PARAMETER, IcRespPdu.OFFSET_PFV,
                    "ICResp with PDU format version " + pfv + " (this host speaks version 0)");
        }
        int c = IcRespPdu.cpda(h);
        if (c > 31) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, IcRespPdu.OFFSET_CPDA,
                    "ICResp with CPDA " + c + " (at most 31)");
        }
        long maxData = IcRespPdu.maxH2cData(h);
        if (maxData < IcRespPdu.MIN_MAXH2CDATA) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, IcRespPdu.OFFSET_MAXH2CDATA,
                    "ICResp with MAXH2CDATA " + maxData + " (at least " + IcRespPdu.MIN_MAXH2CDATA + ")");
        }
        boolean hd = IcRespPdu.headerDigest(h);
        boolean dd = IcRespPdu.dataDigest(h);
        if (hd != options.headerDigest() || dd != options.dataDigest()) {
            throw new PduException(FatalErrorStatus.UNSUPPORTED_PARAMETER, IcRespPdu.OFFSET_DGST, String.format(
                    "the host asked for header digest %s, data digest %s; the controller answered %s, %s",
                    onOff(options.headerDigest()), onOff(options.dataDigest()), onOff(hd), onOff(dd)));
        }
        return new IcNegotiation(hd, dd, c, maxData & ~3L, maxData);
    }

    static String onOff(boolean b) {
        return b ? "on" : "off";
    }
}
