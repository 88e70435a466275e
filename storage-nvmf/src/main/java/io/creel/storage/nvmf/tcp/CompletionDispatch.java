package io.creel.storage.nvmf.tcp;

import io.creel.common.inflight.InFlightSlots;
import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.nvme.CompletionEntry;
import io.creel.storage.nvmf.nvme.DataDirection;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import io.creel.storage.nvmf.nvme.NvmeStatus;
import io.creel.storage.nvmf.tcp.pdu.CapsuleResponsePdu;
import io.creel.storage.nvmf.tcp.pdu.CommonHeader;
import io.creel.storage.nvmf.tcp.pdu.DataPdu;
import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.PduException;
import io.creel.storage.nvmf.tcp.pdu.PduReader;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.creel.storage.nvmf.tcp.pdu.R2tPdu;
import io.creel.storage.nvmf.tcp.pdu.TermReqPdu;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline handler ("completions") for what a queue pair's controller sends once the connection
 * is set up: reads the bytes into PDUs, matches response capsules to their commands by CID and
 * completes them, answers R2Ts with H2CData, takes C2HData into the command's buffers, and checks
 * every data transfer against its command. A PDU that breaks the protocol closes the queue.
 *
 * <p>Buffer ownership: every buffer that reaches this handler is released here, once read (or
 * unread when the queue has closed); nothing goes on down the pipeline but the events. The header
 * and data slices the reader hands to the callbacks are borrowed and kept by none of them.
 * Confined to the queue's event loop.
 */
final class CompletionDispatch extends ChannelInboundHandlerAdapter implements PduReader.Handler {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionDispatch.class);

    /** The queue around the dispatch: the connection setup, its closing, and its commands waiting for a CID. */
    interface Queue {
        /** Whether the ICResp was accepted (before that, only an ICResp may arrive). */
        boolean isReady();

        /** The ICResp {@code header} arrived. */
        void onIcResp(ByteBuf header) throws PduException;

        /** Whether the queue has closed (then input is released unread). */
        boolean isClosed();

        /** A PDU broke the protocol: close the queue; {@code header} is that PDU's header read so far. */
        void protocolError(PduException e, ByteBuf header);

        /** The controller ended the connection with a C2HTermReq: close the queue for {@code cause}. */
        void terminated(NvmfException cause);

        /** A command completed and freed its CID. */
        void cidFreed();
    }

    private final String name;
    private final InFlightSlots<CommandSlot> cids;
    private final PduOutput out;
    private final Queue queue;
    private final PduReader reader;
    private final CompletionEntry cqe = new CompletionEntry();
    private boolean headerDigest;
    private boolean dataDigest;
    private long maxH2cData;
    private CommandSlot dataSlot;
    private long dataOffset;

    /**
     * @param maxReadBytes most data one C2HData PDU may carry
     */
    CompletionDispatch(String name, InFlightSlots<CommandSlot> cids, PduOutput out, long maxReadBytes, Queue queue) {
        this.name = name;
        this.cids = cids;
        this.out = out;
        this.queue = queue;
        this.reader = new PduReader(PduReader.Role.HOST, maxReadBytes, this);
    }

    /** What the ICResp settled: the digests of the PDUs read from now on, and of the H2CData PDUs sent. */
    void negotiated(IcNegotiation n) {
        headerDigest = n.headerDigest();
        dataDigest = n.dataDigest();
        maxH2cData = n.maxH2cData();
        reader.digests(headerDigest, dataDigest);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (!queue.isClosed()) {
                reader.read(in);
            }
        } catch (PduException e) {
            queue.protocolError(e, reader.currentHeader());
        } finally {
            in.release();
        }
    }

    /** Forgets a C2HData transfer under way (the queue closed). */
    void reset() {
        dataSlot = null;
    }

    @Override
    public void onPdu(PduType type, ByteBuf header) throws PduException {
        if (type != PduType.IC_RESP && !queue.isReady()) {
            throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, type + " before ICResp");
        }
        switch (type) {
            case IC_RESP -> queue.onIcResp(header);
            case CAPSULE_RESP -> onResponse(header);
            case R2T -> onR2t(header);
            case C2H_TERM_REQ -> queue.terminated(new NvmfException(NvmfException.Kind.PROTOCOL, String.format(
                    "%s was terminated by the target: %s (FEI %#x)", name,
                    FatalErrorStatus.describe(TermReqPdu.fes(header)), TermReqPdu.fei(header))));
            default -> throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_TYPE,
                    "unexpected " + type);
        }
    }

    private CommandSlot activeSlot(int cid, int fieldOffset, String what) throws PduException {
        CommandSlot slot = cids.get(cid);
        if (slot == null) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, fieldOffset,
                    what + " for CID " + cid + ", which has no outstanding command");
        }
        return slot;
    }

    private void onResponse(ByteBuf h) throws PduException {
        cqe.wrap(h, CapsuleResponsePdu.OFFSET_CQE);
        CommandSlot slot = activeSlot(cqe.cid(), CapsuleResponsePdu.OFFSET_CQE + CompletionEntry.cidOffset(),
                "response capsule");
        complete(slot, cqe.result(), cqe.statusHalfword());
    }

    private void onR2t(ByteBuf h) throws PduException {
        int cid = R2tPdu.cccid(h);
        CommandSlot slot = activeSlot(cid, R2tPdu.OFFSET_CCCID, "R2T");
        NvmeCommand command = slot.command;
        if (command.direction() != DataDirection.HOST_TO_CONTROLLER || slot.inCapsule) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, R2tPdu.OFFSET_CCCID, "R2T for CID "
                    + cid + " (" + command.describe() + "), which has " + (slot.inCapsule
                    ? "sent its data in the capsule" : "no data to send"));
        }
        long offset = R2tPdu.offset(h);
        long length = R2tPdu.length(h);
        long total = command.dataLength();
        if (length == 0 || offset + length > total || slot.solicited + length > total) {
            throw new PduException(FatalErrorStatus.DATA_TRANSFER_OUT_OF_RANGE, R2tPdu.OFFSET_R2TO, String.format(
                    "R2T for CID %d asks for %d bytes at offset %d of a %d-byte transfer (%d bytes asked for before)",
                    cid, length, offset, total, slot.solicited));
        }
        slot.solicited += length;
        int ttag = R2tPdu.ttag(h);
        while (length > 0) {
            int n = (int) Math.min(length, maxH2cData);
            ByteBuf hdr = out.alloc().buffer(PduType.H2C_DATA.headerLength() + CommonHeader.DIGEST_LENGTH);
            DataPdu.encodeHeader(hdr, PduType.H2C_DATA, n == length ? CommonHeader.FLAG_LAST_PDU : 0, headerDigest,
                    dataDigest, cid, ttag, offset, n);
            if (headerDigest) {
                out.appendHeaderDigest(hdr, 0, PduType.H2C_DATA.headerLength());
            }
            out.write(hdr);
            out.writeData(command.data(), offset, n);
            offset += n;
            length -= n;
            slot.transferred += n;
        }
    }

    @Override
    public void onDataStart(PduType type, ByteBuf header, int length) throws PduException {
        if (!queue.isReady()) {
            throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, type + " before ICResp");
        }
        int cid = DataPdu.cccid(header);
        CommandSlot slot = activeSlot(cid, DataPdu.OFFSET_CCCID, "C2HData");
        NvmeCommand command = slot.command;
        if (command.direction() != DataDirection.CONTROLLER_TO_HOST) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, DataPdu.OFFSET_CCCID, "C2HData for CID "
                    + cid + " (" + command.describe() + "), which reads no data");
        }
        long offset = DataPdu.dataOffset(header);
        long total = command.dataLength();
        if (offset + length > total || slot.transferred + length > total) {
            throw new PduException(FatalErrorStatus.DATA_TRANSFER_OUT_OF_RANGE, DataPdu.OFFSET_DATAO, String.format(
                    "C2HData for CID %d carries %d bytes at offset %d of a %d-byte transfer (%d bytes received before)",
                    cid, length, offset, total, slot.transferred));
        }
        int flags = CommonHeader.flags(header, 0);
        if ((flags & CommonHeader.FLAG_SUCCESS) != 0 && (flags & CommonHeader.FLAG_LAST_PDU) == 0) {
            throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_FLAGS,
                    "C2HData for CID " + cid + " with SUCCESS but without LAST_PDU");
        }
        dataSlot = slot;
        dataOffset = offset;
    }

    @Override
    public void onData(ByteBuf chunk) {
        int n = chunk.readableBytes();
        TransferBuffers.copyIn(dataSlot.command.data(), dataOffset, chunk);
        dataOffset += n;
    }

    @Override
    public void onDataEnd(PduType type, ByteBuf header, boolean digestOk) throws PduException {
        CommandSlot slot = dataSlot;
        dataSlot = null;
        slot.transferred += DataPdu.dataLength(header);
        if (!digestOk) {
            slot.dataDigestError = true;
            LOG.warn("{}: data digest mismatch in C2HData for CID {} ({})", name, slot.cid, slot.command.describe());
        }
        if ((CommonHeader.flags(header, 0) & CommonHeader.FLAG_SUCCESS) != 0) {
            if (slot.transferred != slot.command.dataLength()) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, CommonHeader.OFFSET_FLAGS,
                        "C2HData with SUCCESS for CID " + slot.cid + " after " + slot.transferred + " of "
                                + slot.command.dataLength() + " bytes");
            }
            complete(slot, 0, 0);
        }
    }

    private void complete(CommandSlot slot, long result, int status) {
        NvmeCommand command = slot.command;
        CompletableFuture<Object> f = slot.future;
        boolean wantsResult = slot.wantsResult;
        boolean digestError = slot.dataDigestError;
        long transferred = slot.transferred;
        cids.remove(slot.cid);
        slot.clear();
        if (!NvmeStatus.isSuccess(status)) {
            NvmeStatus s = NvmeStatus.fromCqeHalfword(status);
            f.completeExceptionally(new NvmfException(s, command.describe() + " failed on " + name + ": " + s));
        } else if (digestError) {
            f.completeExceptionally(new NvmfException(NvmfException.Kind.DATA_DIGEST, command.describe() + " on "
                    + name + ": the data digest of the data received did not match; the bytes are not trustworthy"));
        } else if (command.direction() == DataDirection.CONTROLLER_TO_HOST && transferred != command.dataLength()) {
            f.completeExceptionally(new NvmfException(NvmfException.Kind.PROTOCOL, command.describe() + " on " + name
                    + " completed successfully after only " + transferred + " of " + command.dataLength()
                    + " bytes of data"));
        } else {
            f.complete(wantsResult ? Long.valueOf(result) : null);
        }
        queue.cidFreed();
    }
}
