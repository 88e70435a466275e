package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.PduException;
import io.creel.storage.nvmf.tcp.pdu.PduReader;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The connection setup of a queue pair, first in its pipeline: sends the ICReq when the connection
 * is up, reads the controller's first PDU, hands an ICResp to the queue to check and settle, then
 * removes itself and passes any bytes after the ICResp on. Any other first PDU is a protocol error.
 * (The Fabrics Connect that follows is an ordinary command the controller sends on the queue.)
 *
 * <p>Buffer ownership: a buffer read here is released here, except the rest of the one that ends
 * the ICResp, which is passed on and then belongs to the next handler. Confined to the event loop.
 */
final class IcExchangeHandler extends ChannelInboundHandlerAdapter implements PduReader.Handler {
    /** The queue whose connection is being set up. */
    interface Setup {
        /** The connection is up; the ICReq goes out next. */
        void connected();

        /** Whether the queue closed meanwhile (then input is ignored). */
        boolean isClosed();

        /** Checks and settles the ICResp {@code header}; a PduException when this host cannot accept it. */
        void onIcResp(ByteBuf header) throws PduException;

        /** The target broke the protocol during setup; {@code header} is the PDU header read so far. */
        void protocolError(PduException e, ByteBuf header);
    }

    private static final int IC_RESP_LENGTH = PduType.IC_RESP.headerLength();

    private final NvmeTcpOptions options;
    private final Setup setup;
    private final PduReader reader;
    /** Bytes handed to the reader: at most an ICResp's worth, so none after it are taken. */
    private int fed;
    private boolean done;

    IcExchangeHandler(NvmeTcpOptions options, long maxReadBytes, Setup setup) {
        this.options = options;
        this.setup = setup;
        // the same limit as the queue's reader, so a bad first PDU is refused with the same error
        this.reader = new PduReader(PduReader.Role.HOST, maxReadBytes, this);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        setup.connected();
        ctx.writeAndFlush(IcNegotiation.icReq(ctx.alloc(), options), ctx.voidPromise());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (setup.isClosed()) {
                return;
            }
            while (in.isReadable() && !done) {
                // A first PDU other than an ICResp may be longer (a C2HTermReq): past 128 bytes, feed it all.
                int n = fed < IC_RESP_LENGTH ? Math.min(in.readableBytes(), IC_RESP_LENGTH - fed) : in.readableBytes();
                fed += n;
                reader.read(in.readSlice(n));
            }
            if (done) {
                ctx.pipeline().remove(this);
                if (in.isReadable() && !setup.isClosed()) {
                    ByteBuf rest = in;
                    in = null;
                    ctx.fireChannelRead(rest);
                }
            }
        } catch (PduException e) {
            setup.protocolError(e, reader.currentHeader());
        } finally {
            if (in != null) {
                in.release();
            }
        }
    }

    @Override
    public void onPdu(PduType type, ByteBuf header) throws PduException {
        if (type != PduType.IC_RESP) {
            throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, type + " before ICResp");
        }
        setup.onIcResp(header);
        done = true;
    }

    @Override
    public void onDataStart(PduType type, ByteBuf header, int dataLength) throws PduException {
        throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, type + " before ICResp");
    }

    @Override
    public void onData(ByteBuf chunk) {
        // never reached: onDataStart refuses every PDU with data
    }

    @Override
    public void onDataEnd(PduType type, ByteBuf header, boolean digestOk) {
        // never reached: onDataStart refuses every PDU with data
    }
}
