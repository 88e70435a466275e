package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.tcp.pdu.CapsuleResponsePdu;
import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.IcRespPdu;
import io.creel.storage.nvmf.tcp.pdu.PduException;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IcExchangeHandlerTest {
    /** Records what the handler tells the queue. */
    private static final class Recorder implements IcExchangeHandler.Setup {
        int connected;
        final List<Integer> icResps = new ArrayList<>();
        PduException error;
        boolean closed;

        @Override
        public void connected() {
            connected++;
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public void onIcResp(ByteBuf header) {
            icResps.add(IcRespPdu.cpda(header));
        }

        @Override
        public void protocolError(PduException e, ByteBuf header) {
            error = e;
            closed = true;
        }
    }

    private final Recorder setup = new Recorder();

    private EmbeddedChannel channel() {
        IcExchangeHandler h = new IcExchangeHandler(NvmeTcpOptions.defaults(), 1 << 20, setup);
        return new EmbeddedChannel(h);
    }

    private static ByteBuf icResp(int cpda) {
        ByteBuf b = Unpooled.buffer();
        IcRespPdu.encode(b, 0, false, false, cpda, 65536);
        return b;
    }

    @Test
    void sendsTheIcReqWhenConnected() {
        EmbeddedChannel ch = channel();
        assertEquals(1, setup.connected);
        ByteBuf icReq = ch.readOutbound();
        assertNotNull(icReq);
        assertEquals(PduType.IC_REQ.headerLength(), icReq.readableBytes());
        icReq.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void anIcRespInPiecesIsHandedOnceThenTheHandlerLeavesAndPassesTheRestOn() {
        EmbeddedChannel ch = channel();
        ByteBuf resp = icResp(3);
        ByteBuf first = resp.copy(0, 100);
        ch.writeInbound(first);
        assertEquals(List.of(), setup.icResps, "not before the whole ICResp is there");
        ByteBuf second = Unpooled.buffer().writeBytes(resp, 100, resp.readableBytes() - 100)
                .writeBytes(new byte[] {1, 2, 3});
        resp.release();
        ch.writeInbound(second);
        assertEquals(List.of(3), setup.icResps);
        assertNull(ch.pipeline().get(IcExchangeHandler.class), "the handler removed itself");
        ByteBuf passedOn = ch.readInbound();
        assertEquals(3, passedOn.readableBytes(), "only the bytes after the ICResp go on");
        assertEquals(1, passedOn.getByte(passedOn.readerIndex()));
        passedOn.release();
        assertEquals(0, first.refCnt(), "a buffer the handler consumed is released");
        ch.finishAndReleaseAll();
    }

    @Test
    void aBufferEndingWithTheIcRespIsReleasedAndNothingIsPassedOn() {
        EmbeddedChannel ch = channel();
        ByteBuf resp = icResp(0);
        ch.writeInbound(resp);
        assertEquals(0, resp.refCnt());
        assertNull(ch.readInbound());
        assertEquals(List.of(0), setup.icResps);
        ch.finishAndReleaseAll();
    }

    @Test
    void anyOtherFirstPduIsASequenceErrorAndItsBufferIsReleased() {
        EmbeddedChannel ch = channel();
        ByteBuf capsule = Unpooled.buffer();
        CapsuleResponsePdu.encodeHeader(capsule, false);
        ch.writeInbound(capsule);
        assertNotNull(setup.error);
        assertEquals(FatalErrorStatus.PDU_SEQUENCE_ERROR, setup.error.status());
        assertTrue(setup.error.getMessage().contains(PduType.CAPSULE_RESP + " before ICResp"),
                setup.error.getMessage());
        assertEquals(0, capsule.refCnt());
        assertEquals(List.of(), setup.icResps);
        ch.finishAndReleaseAll();
    }

    @Test
    void inputAfterTheQueueClosedIsReleasedUnread() {
        EmbeddedChannel ch = channel();
        setup.closed = true;
        ByteBuf resp = icResp(0);
        ch.writeInbound(resp);
        assertEquals(0, resp.refCnt());
        assertEquals(List.of(), setup.icResps);
        ch.finishAndReleaseAll();
    }
}
