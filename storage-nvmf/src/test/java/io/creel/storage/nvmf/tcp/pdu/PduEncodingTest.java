package io.creel.storage.nvmf.tcp.pdu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The encoders lay fields out at the byte offsets of the NVMe/TCP transport specification. */
class PduEncodingTest {
    @Test
    void icReqIs128BytesWithDigestBitsAndMaxR2t() {
        ByteBuf b = Unpooled.buffer();
        IcReqPdu.encode(b, true, false, 0, 3);
        assertEquals(128, b.readableBytes());
        assertEquals("00008000" + "80000000" + "0000" + "00" + "01" + "03000000",
                ByteBufUtil.hexDump(b, 0, 16));
        assertEquals(0, b.getByte(127));
        assertEquals(true, IcReqPdu.headerDigest(b));
        assertEquals(false, IcReqPdu.dataDigest(b));
        assertEquals(3, IcReqPdu.maxR2t(b));
    }

    @Test
    void icRespFieldsReadBack() {
        ByteBuf b = Unpooled.buffer();
        IcRespPdu.encode(b, 0, true, true, 2, 0x400000);
        assertEquals("01008000" + "80000000" + "0000" + "02" + "03" + "00004000", ByteBufUtil.hexDump(b, 0, 16));
        assertEquals(2, IcRespPdu.cpda(b));
        assertEquals(0x400000, IcRespPdu.maxH2cData(b));
    }

    @Test
    void aCommandCapsuleWithDataPadsToTheControllersAlignment() {
        // HLEN 72 + header digest 4 = 76, rounded up to (CPDA 3 + 1) * 4 = 16 bytes: PDO 80
        assertEquals(80, CapsuleCommandPdu.dataOffset(true, 3));
        assertEquals(72, CapsuleCommandPdu.dataOffset(false, 0));
        ByteBuf b = Unpooled.buffer();
        int sqe = CapsuleCommandPdu.encodeHeader(b, true, true, 3, 1000);
        assertEquals(8, sqe);
        assertEquals(72, b.readableBytes(), "common header and SQE; the rest is the caller's");
        assertEquals(PduType.CAPSULE_CMD.code(), CommonHeader.type(b, 0));
        assertEquals(CommonHeader.FLAG_HDGST | CommonHeader.FLAG_DDGST, CommonHeader.flags(b, 0));
        assertEquals(72, CommonHeader.hlen(b, 0));
        assertEquals(80, CommonHeader.pdo(b, 0));
        assertEquals(80 + 1000 + 4, CommonHeader.plen(b, 0));
        ByteBuf none = Unpooled.buffer();
        CapsuleCommandPdu.encodeHeader(none, false, true, 3, 0);
        assertEquals(0, CommonHeader.pdo(none, 0));
        assertEquals(0, CommonHeader.flags(none, 0), "no data, no data digest");
        assertEquals(72, CommonHeader.plen(none, 0));
    }

    @Test
    void dataAndR2tPdusCarryTheirFieldsAtTheirOffsets() {
        ByteBuf d = Unpooled.buffer();
        DataPdu.encodeHeader(d, PduType.H2C_DATA, CommonHeader.FLAG_LAST_PDU, true, false, 0x1234, 0x5678, 0x10000, 4096);
        assertEquals("06" + "05" + "18" + "1c" + "1c100000" + "3412" + "7856" + "00000100" + "00100000" + "00000000",
                ByteBufUtil.hexDump(d));
        ByteBuf r = Unpooled.buffer();
        R2tPdu.encode(r, false, 9, 10, 512, 8192);
        assertEquals(9, R2tPdu.cccid(r));
        assertEquals(10, R2tPdu.ttag(r));
        assertEquals(512, R2tPdu.offset(r));
        assertEquals(8192, R2tPdu.length(r));
        assertEquals(24, CommonHeader.plen(r, 0));
        assertThrows(IllegalArgumentException.class,
                () -> DataPdu.encodeHeader(Unpooled.buffer(), PduType.R2T, 0, false, false, 0, 0, 0, 1));
    }

    @Test
    void aTermReqCarriesAtMost128BytesOfTheOffendingHeader() {
        ByteBuf offending = Unpooled.buffer();
        offending.writeZero(200);
        ByteBuf t = Unpooled.buffer();
        TermReqPdu.encode(t, PduType.H2C_TERM_REQ, FatalErrorStatus.DATA_TRANSFER_OUT_OF_RANGE, 12, offending);
        assertEquals(152, t.readableBytes());
        assertEquals(152, CommonHeader.plen(t, 0));
        assertEquals(4, TermReqPdu.fes(t));
        assertEquals(12, TermReqPdu.fei(t));
        assertEquals(0, offending.readerIndex(), "the offending header is not consumed");
        assertThrows(IllegalArgumentException.class, () -> TermReqPdu.encode(Unpooled.buffer(), PduType.R2T,
                FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, null));
    }

    @Test
    void digestsAreStandardCrc32cStoredLittleEndian() {
        ByteBuf check = Unpooled.copiedBuffer("123456789", StandardCharsets.US_ASCII);
        assertEquals(0xE3069283, new PduDigest().of(check, 0, 9));
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(check.duplicate());
        new PduDigest().appendHeaderDigest(out, 0, 9);
        assertEquals("83920 6e3".replace(" ", ""), ByteBufUtil.hexDump(out, 9, 4));
        ByteBuf direct = Unpooled.directBuffer();
        direct.writeBytes(check.duplicate());
        assertEquals(0xE3069283, new PduDigest().of(direct, 0, 9));
        assertEquals(0xE3069283, new PduDigest().of(Unpooled.wrappedBuffer(
                Unpooled.copiedBuffer("1234", StandardCharsets.US_ASCII), direct.slice(4, 5)), 0, 9));
    }
}
