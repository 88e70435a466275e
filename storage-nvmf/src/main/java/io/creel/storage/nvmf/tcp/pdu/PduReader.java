package io.creel.storage.nvmf.tcp.pdu;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Splits one direction of an NVMe/TCP byte stream into PDUs and checks their framing: the type
 * belongs to this direction, HLEN, PDO and PLEN agree with the type and with each other, digest
 * flags match what was negotiated, the header digest is right. Headers are gathered into a small
 * buffer of the reader's own; data is not gathered but handed over in the slices it arrives in, so
 * a large C2HData goes straight into its destination. The data digest is computed on the way and
 * reported, not enforced: what a bad data digest means is the caller's decision.
 *
 * <p>One reader per connection, used from one thread. The header buffer passed to the handler is
 * valid only during the call (for data PDUs, from {@link Handler#onDataStart} through
 * {@link Handler#onDataEnd}); it holds HLEN bytes (for a TermReq, the whole PDU) from index 0.
 */
public final class PduReader {
    /** Which side of the connection reads with this reader. */
    public enum Role {
        /** Reads what a controller sends. */
        HOST,
        /** Reads what a host sends. */
        CONTROLLER
    }

    /** Receives the PDUs. Any method may throw {@link PduException} to reject what it was given. */
    public interface Handler {
        /** A whole PDU without data. */
        void onPdu(PduType type, ByteBuf header) throws PduException;

        /** The header of a PDU carrying {@code dataLength} (> 0) bytes of data, which follow. */
        void onDataStart(PduType type, ByteBuf header, int dataLength) throws PduException;

        /** The next bytes of the data (readable bytes of {@code chunk}; valid only during the call). */
        void onData(ByteBuf chunk) throws PduException;

        /** All the data arrived; {@code digestOk} is false only if a data digest was negotiated and differs. */
        void onDataEnd(PduType type, ByteBuf header, boolean digestOk) throws PduException;
    }

    private enum State { COMMON_HEADER, HEADER, PADDING, DATA, DATA_DIGEST }

    private static final int HEADER_CAPACITY = TermReqPdu.MAX_LENGTH + CommonHeader.DIGEST_LENGTH;

    private final Role role;
    private final long maxDataLength;
    private final Handler handler;
    private final ByteBuf header = Unpooled.buffer(HEADER_CAPACITY, HEADER_CAPACITY);
    private final ByteBuf digestBytes = Unpooled.buffer(CommonHeader.DIGEST_LENGTH, CommonHeader.DIGEST_LENGTH);
    private final PduDigest headerCrc = new PduDigest();
    private final PduDigest dataCrc = new PduDigest();

    private boolean headerDigest;
    private boolean dataDigest;
    private State state = State.COMMON_HEADER;
    private PduType type;
    private int headerTarget;
    private int paddingLeft;
    private int dataLength;
    private int dataLeft;
    private boolean failed;

    /**
     * @param maxDataLength the most data one PDU may carry; more is a framing error
     */
    public PduReader(Role role, long maxDataLength, Handler handler) {
        this.role = role;
        this.maxDataLength = maxDataLength;
        this.handler = handler;
    }

    /** Turns digests on or off for the PDUs that follow (after the ICReq/ICResp exchange). */
    public void digests(boolean header, boolean data) {
        this.headerDigest = header;
        this.dataDigest = data;
    }

    /**
     * Consumes all readable bytes of {@code in}, calling the handler for each PDU part completed. After
     * a {@link PduException} the stream is out of step: the reader refuses further input.
     */
    public void read(ByteBuf in) throws PduException {
        if (failed) {
            throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0,
                    "input after a fatal PDU error; the connection must be closed");
        }
        try {
            while (in.isReadable()) {
                switch (state) {
                    case COMMON_HEADER -> {
                        if (fill(in, CommonHeader.LENGTH)) {
                            startHeader();
                        }
                    }
                    case HEADER -> {
                        if (fill(in, headerTarget)) {
                            endHeader();
                        }
                    }
                    case PADDING -> {
                        int n = Math.min(paddingLeft, in.readableBytes());
                        in.skipBytes(n);
                        paddingLeft -= n;
                        if (paddingLeft == 0) {
                            state = State.DATA;
                        }
                    }
                    case DATA -> {
                        int n = Math.min(dataLeft, in.readableBytes());
                        ByteBuf chunk = in.readSlice(n);
                        if (dataDigest) {
                            dataCrc.update(chunk, chunk.readerIndex(), n);
                        }
                        dataLeft -= n;
                        handler.onData(chunk);
                        if (dataLeft == 0) {
                            if (dataDigest) {
                                digestBytes.clear();
                                state = State.DATA_DIGEST;
                            } else {
                                endData(true);
                            }
                        }
                    }
                    case DATA_DIGEST -> {
                        int n = Math.min(digestBytes.writableBytes(), in.readableBytes());
                        digestBytes.writeBytes(in, n);
                        if (!digestBytes.isWritable()) {
                            endData(digestBytes.getIntLE(0) == dataCrc.value());
                        }
                    }
                    default -> throw new IllegalStateException(state.toString());
                }
            }
        } catch (PduException e) {
            failed = true;
            throw e;
        }
    }

    /** The header bytes gathered so far (for a TermReq about the PDU that was being read). */
    public ByteBuf currentHeader() {
        return header;
    }

    private boolean fill(ByteBuf in, int target) {
        int n = Math.min(target - header.writerIndex(), in.readableBytes());
        header.writeBytes(in, n);
        return header.writerIndex() == target;
    }

    private void startHeader() throws PduException {
        int code = CommonHeader.type(header, 0);
        PduType t = PduType.of(code);
        if (t == null || t.isHostToController() != (role == Role.CONTROLLER)) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_TYPE,
                    String.format("PDU type %#04x%s is not one a %s receives", code, t == null ? "" : " (" + t + ")",
                            role == Role.HOST ? "host" : "controller"));
        }
        int hlen = CommonHeader.hlen(header, 0);
        if (hlen != t.headerLength()) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_HLEN,
                    t + " with HLEN " + hlen + ", expected " + t.headerLength());
        }
        int flags = CommonHeader.flags(header, 0);
        boolean digestible = t.isDigestible();
        boolean hdgstFlag = (flags & CommonHeader.FLAG_HDGST) != 0;
        if (hdgstFlag != (digestible && headerDigest)) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_FLAGS,
                    t + " with header digest flag " + (hdgstFlag ? "set" : "clear") + " but header digests are "
                            + (headerDigest ? "on" : "off") + (digestible ? "" : " (and never apply to " + t + ")"));
        }
        long plen = CommonHeader.plen(header, 0);
        int hd = hdgstFlag ? CommonHeader.DIGEST_LENGTH : 0;
        type = t;
        if (t == PduType.H2C_TERM_REQ || t == PduType.C2H_TERM_REQ) {
            if (plen < hlen || plen > TermReqPdu.MAX_LENGTH) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PLEN,
                        t + " with PLEN " + plen + ", expected " + hlen + ".." + TermReqPdu.MAX_LENGTH);
            }
            headerTarget = (int) plen;
        } else {
            headerTarget = hlen + hd;
            if (!t.mayCarryData() && plen != headerTarget) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PLEN,
                        t + " with PLEN " + plen + ", expected " + headerTarget);
            }
            if (t.mayCarryData() && plen < headerTarget) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PLEN,
                        t + " with PLEN " + plen + " shorter than its header (" + headerTarget + ")");
            }
        }
        if (!t.mayCarryData() && CommonHeader.pdo(header, 0) != 0) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PDO,
                    t + " with PDO " + CommonHeader.pdo(header, 0) + ", expected 0");
        }
        state = State.HEADER;
    }

    private void endHeader() throws PduException {
        int hlen = type.headerLength();
        int flags = CommonHeader.flags(header, 0);
        if ((flags & CommonHeader.FLAG_HDGST) != 0) {
            int expected = headerCrc.of(header, 0, hlen);
            int got = header.getIntLE(hlen);
            if (expected != got) {
                throw new PduException(FatalErrorStatus.HEADER_DIGEST_ERROR, 0,
                        String.format("%s header digest %#010x, computed %#010x", type, got, expected));
            }
        }
        header.writerIndex(type == PduType.H2C_TERM_REQ || type == PduType.C2H_TERM_REQ ? headerTarget : hlen);
        if (!type.mayCarryData()) {
            PduType t = type;
            resetForNext();
            handler.onPdu(t, header);
            header.clear();
            return;
        }
        long plen = CommonHeader.plen(header, 0);
        if (plen == headerTarget) {
            if (type != PduType.CAPSULE_CMD) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PLEN,
                        type + " without data (PLEN " + plen + ")");
            }
            if (CommonHeader.pdo(header, 0) != 0 || (flags & CommonHeader.FLAG_DDGST) != 0) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PDO,
                        type + " without data but with PDO " + CommonHeader.pdo(header, 0) + " or a data digest flag");
            }
            PduType t = type;
            resetForNext();
            handler.onPdu(t, header);
            header.clear();
            return;
        }
        int pdo = CommonHeader.pdo(header, 0);
        boolean ddgstFlag = (flags & CommonHeader.FLAG_DDGST) != 0;
        if (ddgstFlag != dataDigest) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_FLAGS,
                    type + " with data digest flag " + (ddgstFlag ? "set" : "clear") + " but data digests are "
                            + (dataDigest ? "on" : "off"));
        }
        int dd = ddgstFlag ? CommonHeader.DIGEST_LENGTH : 0;
        if (pdo < headerTarget || pdo > plen - dd - 1) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PDO,
                    type + " with PDO " + pdo + " outside its PDU (header ends at " + headerTarget + ", PLEN " + plen + ")");
        }
        long data = plen - pdo - dd;
        if (data > maxDataLength) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_PLEN,
                    type + " with " + data + " bytes of data, more than the " + maxDataLength + " allowed");
        }
        if (type != PduType.CAPSULE_CMD && DataPdu.dataLength(header) != data) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, DataPdu.OFFSET_DATAL,
                    type + " with DATAL " + DataPdu.dataLength(header) + " but " + data + " bytes of data in the PDU");
        }
        dataLength = (int) data;
        dataLeft = dataLength;
        paddingLeft = pdo - headerTarget;
        dataCrc.reset();
        state = paddingLeft > 0 ? State.PADDING : State.DATA;
        handler.onDataStart(type, header, dataLength);
    }

    private void endData(boolean digestOk) throws PduException {
        PduType t = type;
        resetForNext();
        handler.onDataEnd(t, header, digestOk);
        header.clear();
    }

    private void resetForNext() {
        state = State.COMMON_HEADER;
        type = null;
    }
}
