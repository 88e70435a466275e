package io.creel.storage.nvmf.tcp.pdu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PduReaderTest {
    /** Records what the reader hands over. */
    private static class Recorder implements PduReader.Handler {
        final List<String> events = new ArrayList<>();
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
        final List<Integer> chunkSizes = new ArrayList<>();
        boolean lastDigestOk;

        @Override
        public void onPdu(PduType type, ByteBuf header) throws PduException {
            events.add(type + "/" + header.readableBytes());
        }

        @Override
        public void onDataStart(PduType type, ByteBuf header, int dataLength) {
            events.add("start " + type + "/" + dataLength);
        }

        @Override
        public void onData(ByteBuf chunk) {
            chunkSizes.add(chunk.readableBytes());
            byte[] b = new byte[chunk.readableBytes()];
            chunk.getBytes(chunk.readerIndex(), b);
            data.writeBytes(b);
        }

        @Override
        public void onDataEnd(PduType type, ByteBuf header, boolean digestOk) {
            lastDigestOk = digestOk;
            events.add("end " + type);
        }
    }

    private static PduReader hostReader(Recorder r) {
        return new PduReader(PduReader.Role.HOST, 1 << 20, r);
    }

    private static ByteBuf icResp() {
        ByteBuf b = Unpooled.buffer();
        IcRespPdu.encode(b, 0, false, false, 0, 131072);
        return b;
    }

    private static ByteBuf c2hData(byte[] data, int pdo, boolean hd, boolean dd, int flags) {
        PduDigest crc = new PduDigest();
        ByteBuf b = Unpooled.buffer();
        int hdLen = hd ? 4 : 0;
        int plen = pdo + data.length + (dd ? 4 : 0);
        CommonHeader.write(b, PduType.C2H_DATA, flags | (hd ? CommonHeader.FLAG_HDGST : 0)
                | (dd ? CommonHeader.FLAG_DDGST : 0), pdo, plen);
        b.writeShortLE(7).writeShortLE(0).writeIntLE(0).writeIntLE(data.length).writeIntLE(0);
        if (hd) {
            crc.appendHeaderDigest(b, 0, 24);
        }
        b.writeZero(pdo - 24 - hdLen);
        b.writeBytes(data);
        if (dd) {
            b.writeIntLE(crc.of(Unpooled.wrappedBuffer(data), 0, data.length));
        }
        return b;
    }

    private static void feedInPieces(PduReader reader, ByteBuf all, int piece) throws PduException {
        while (all.isReadable()) {
            reader.read(all.readSlice(Math.min(piece, all.readableBytes())));
        }
    }

    private static PduException rejects(PduReader reader, ByteBuf bytes) {
        return assertThrows(PduException.class, () -> reader.read(bytes));
    }

    @Test
    void aPduSplitIntoOneByteReadsIsStillOnePdu() throws PduException {
        Recorder r = new Recorder();
        feedInPieces(hostReader(r), icResp(), 1);
        assertEquals(List.of("IC_RESP/128"), r.events);
    }

    @Test
    void severalPdusInOneReadAreAllDelivered() throws PduException {
        Recorder r = new Recorder();
        ByteBuf b = icResp();
        CapsuleResponsePdu.encodeHeader(b, false);
        R2tPdu.encode(b, false, 1, 1, 0, 4096);
        hostReader(r).read(b);
        assertEquals(List.of("IC_RESP/128", "CAPSULE_RESP/24", "R2T/24"), r.events);
    }

    @Test
    void dataIsHandedOverInTheSlicesItArrivesInWithPaddingAndDigestsStripped() throws PduException {
        byte[] data = new byte[10000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        for (int piece : new int[] {1, 7, 100, 4096, 100000}) {
            Recorder r = new Recorder();
            PduReader reader = hostReader(r);
            reader.digests(true, true);
            feedInPieces(reader, c2hData(data, 32, true, true, CommonHeader.FLAG_LAST_PDU), piece);
            assertArrayEquals(data, r.data.toByteArray(), "piece size " + piece);
            assertTrue(r.lastDigestOk);
            assertEquals(List.of("start C2H_DATA/10000", "end C2H_DATA"), r.events);
            assertTrue(r.chunkSizes.stream().allMatch(n -> n <= piece));
        }
    }

    @Test
    void aWrongDataDigestIsReportedNotThrown() throws PduException {
        Recorder r = new Recorder();
        PduReader reader = hostReader(r);
        reader.digests(false, true);
        ByteBuf pdu = c2hData(new byte[100], 24, false, true, CommonHeader.FLAG_LAST_PDU);
        pdu.setByte(pdu.writerIndex() - 1, pdu.getByte(pdu.writerIndex() - 1) ^ 0x10);
        reader.read(pdu);
        assertFalse(r.lastDigestOk);
        // and the stream stays in step
        ByteBuf next = Unpooled.buffer();
        CapsuleResponsePdu.encodeHeader(next, false);
        reader.read(next);
        assertEquals("CAPSULE_RESP/24", r.events.get(r.events.size() - 1));
    }

    @Test
    void aWrongHeaderDigestIsFatal() {
        Recorder r = new Recorder();
        PduReader reader = hostReader(r);
        reader.digests(true, false);
        ByteBuf b = Unpooled.buffer();
        CapsuleResponsePdu.encodeHeader(b, true);
        new PduDigest().appendHeaderDigest(b, 0, 24);
        b.setByte(12, 1);
        PduException e = rejects(reader, b);
        assertEquals(FatalErrorStatus.HEADER_DIGEST_ERROR, e.status());
        assertTrue(r.events.isEmpty());
    }

    @Test
    void typesThatDoNotFlowThisWayOrDoNotExistAreRejectedAtTheTypeByte() {
        for (int type : new int[] {0x00, 0x02, 0x04, 0x06, 0x08, 0x0A, 0x7F, 0xFF}) {
            ByteBuf b = Unpooled.buffer();
            b.writeByte(type).writeByte(0).writeByte(24).writeByte(0).writeIntLE(24).writeZero(16);
            PduException e = rejects(hostReader(new Recorder()), b);
            assertEquals(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, e.status(), "type " + type);
            assertEquals(CommonHeader.OFFSET_TYPE, e.fieldOffset(), "type " + type);
        }
        ByteBuf resp = Unpooled.buffer();
        CapsuleResponsePdu.encodeHeader(resp, false);
        PduException e = rejects(new PduReader(PduReader.Role.CONTROLLER, 4096, new Recorder()), resp);
        assertEquals(CommonHeader.OFFSET_TYPE, e.fieldOffset(), "a controller does not take response capsules");
    }

    @Test
    void badLengthsAndOffsetsNameTheField() {
        // HLEN not the type's
        ByteBuf hlen = Unpooled.buffer();
        hlen.writeByte(0x05).writeByte(0).writeByte(20).writeByte(0).writeIntLE(20).writeZero(12);
        assertEquals(CommonHeader.OFFSET_HLEN, rejects(hostReader(new Recorder()), hlen).fieldOffset());
        // a response capsule with room for data
        ByteBuf plen = Unpooled.buffer();
        plen.writeByte(0x05).writeByte(0).writeByte(24).writeByte(0).writeIntLE(28).writeZero(20);
        assertEquals(CommonHeader.OFFSET_PLEN, rejects(hostReader(new Recorder()), plen).fieldOffset());
        // an ICResp of the wrong size
        ByteBuf ic = icResp();
        ic.setIntLE(4, 132);
        assertEquals(CommonHeader.OFFSET_PLEN, rejects(hostReader(new Recorder()), ic).fieldOffset());
        // PDO on a PDU without data
        ByteBuf pdo = Unpooled.buffer();
        R2tPdu.encode(pdo, false, 0, 0, 0, 10);
        pdo.setByte(3, 24);
        assertEquals(CommonHeader.OFFSET_PDO, rejects(hostReader(new Recorder()), pdo).fieldOffset());
        // C2HData whose DATAL disagrees with its PLEN
        ByteBuf datal = c2hData(new byte[64], 24, false, false, 0);
        datal.setIntLE(DataPdu.OFFSET_DATAL, 65);
        assertEquals(DataPdu.OFFSET_DATAL, rejects(hostReader(new Recorder()), datal).fieldOffset());
        // C2HData whose PDO points past its end
        ByteBuf far = c2hData(new byte[64], 24, false, false, 0);
        far.setByte(3, 200);
        assertEquals(CommonHeader.OFFSET_PDO, rejects(hostReader(new Recorder()), far).fieldOffset());
        // C2HData without any data
        ByteBuf empty = Unpooled.buffer();
        CommonHeader.write(empty, PduType.C2H_DATA, 0, 24, 24);
        empty.writeZero(16);
        assertEquals(CommonHeader.OFFSET_PLEN, rejects(hostReader(new Recorder()), empty).fieldOffset());
        // a TermReq longer than 152 bytes
        ByteBuf term = Unpooled.buffer();
        CommonHeader.write(term, PduType.C2H_TERM_REQ, 0, 0, 153);
        term.writeZero(16);
        assertEquals(CommonHeader.OFFSET_PLEN, rejects(hostReader(new Recorder()), term).fieldOffset());
    }

    @Test
    void moreDataThanAllowedIsRejectedBeforeAnyIsRead() {
        Recorder r = new Recorder();
        PduReader reader = new PduReader(PduReader.Role.HOST, 1000, r);
        ByteBuf big = Unpooled.buffer();
        CommonHeader.write(big, PduType.C2H_DATA, 0, 24, 24L + 0xFFFFFF00L);
        big.writeShortLE(0).writeShortLE(0).writeIntLE(0).writeIntLE(0xFFFFFF00).writeIntLE(0);
        assertEquals(CommonHeader.OFFSET_PLEN, rejects(reader, big).fieldOffset());
        assertTrue(r.events.isEmpty());
    }

    @Test
    void digestFlagsMustMatchWhatWasNegotiated() {
        PduReader off = hostReader(new Recorder());
        ByteBuf flagged = Unpooled.buffer();
        CapsuleResponsePdu.encodeHeader(flagged, true);
        flagged.writeIntLE(0);
        assertEquals(CommonHeader.OFFSET_FLAGS, rejects(off, flagged).fieldOffset());

        PduReader on = hostReader(new Recorder());
        on.digests(true, true);
        ByteBuf unflagged = Unpooled.buffer();
        CapsuleResponsePdu.encodeHeader(unflagged, false);
        assertEquals(CommonHeader.OFFSET_FLAGS, rejects(on, unflagged).fieldOffset());

        PduReader data = hostReader(new Recorder());
        data.digests(false, true);
        assertEquals(CommonHeader.OFFSET_FLAGS,
                rejects(data, c2hData(new byte[8], 24, false, false, 0)).fieldOffset());

        // TermReqs never carry digests, even when they are on
        Recorder r = new Recorder();
        PduReader term = hostReader(r);
        term.digests(true, true);
        ByteBuf t = Unpooled.buffer();
        TermReqPdu.encode(t, PduType.C2H_TERM_REQ, FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, null);
        assertDoesNotThrowPdu(term, t);
        assertEquals(List.of("C2H_TERM_REQ/24"), r.events);
    }

    private static void assertDoesNotThrowPdu(PduReader reader, ByteBuf b) {
        try {
            reader.read(b);
        } catch (PduException e) {
            throw new AssertionError("unexpected " + e.getMessage(), e);
        }
    }

    @Test
    void afterAFatalErrorFurtherInputIsRefused() {
        PduReader reader = hostReader(new Recorder());
        ByteBuf bad = Unpooled.buffer();
        bad.writeByte(0x42).writeZero(7);
        rejects(reader, bad);
        PduException e = rejects(reader, icResp());
        assertEquals(FatalErrorStatus.PDU_SEQUENCE_ERROR, e.status());
    }

    @Test
    void aHandlerRejectingAPduStopsTheReaderToo() {
        PduReader reader = new PduReader(PduReader.Role.HOST, 4096, new Recorder() {
            @Override
            public void onPdu(PduType type, ByteBuf header) throws PduException {
                throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, "not now");
            }
        });
        assertEquals("not now", rejects(reader, icResp()).getMessage());
        assertEquals(FatalErrorStatus.PDU_SEQUENCE_ERROR, rejects(reader, icResp()).status());
    }
}
