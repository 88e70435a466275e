package io.creel.storage.nvmf.nvme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Commands land in the SQE at the offsets the NVMe base and Fabrics specifications give. */
class CommandEncodingTest {
    private static ByteBuf encode(NvmeCommand c) {
        ByteBuf b = Unpooled.buffer(64);
        b.writeZero(64);
        c.encode(new SubmissionEntry().wrap(b, 0));
        return b;
    }

    @Test
    void aReadCarriesNamespaceStartingLbaAndZeroBasedBlockCount() {
        NvmeCommand read = NvmeCommands.read(3, 0x1_2345_6789L, 8, ByteBuffer.allocate(4096));
        ByteBuf b = encode(read);
        assertEquals(0x02, b.getByte(0));
        assertEquals(3, b.getIntLE(4));
        assertEquals(0x2345_6789, b.getIntLE(40));
        assertEquals(1, b.getIntLE(44));
        assertEquals(7, b.getIntLE(48));
        assertEquals(DataDirection.CONTROLLER_TO_HOST, read.direction());
        assertEquals(4096, read.dataLength());
        assertEquals("Read nsid 3 slba 4886718345 nlb 8 (4096 bytes)", read.describe());
    }

    @Test
    void aConnectCarriesQueueIdSizeAttributesAndKeepAlive() {
        ByteBuffer data = ConnectData.encode(new UUID(1, 2), 0xFFFF, "nqn.sub", "nqn.host");
        ByteBuf b = encode(NvmeCommands.connect(5, 128, NvmeCommands.CONNECT_DISABLE_SQ_FLOW, 10000, data));
        assertEquals(0x7F, b.getUnsignedByte(0));
        assertEquals(0x01, b.getByte(4), "FCTYPE Connect");
        assertEquals(0, b.getShortLE(40), "RECFMT");
        assertEquals(5, b.getShortLE(42), "QID");
        assertEquals(127, b.getShortLE(44), "SQSIZE, 0's based");
        assertEquals(0x04, b.getByte(46), "CATTR");
        assertEquals(10000, b.getIntLE(48), "KATO");
    }

    @Test
    void propertyGetAndSetCarrySizeOffsetAndValue() {
        ByteBuf get = encode(NvmeCommands.propertyGet(ControllerRegisters.CAP, true));
        assertEquals(0x04, get.getByte(4));
        assertEquals(1, get.getByte(40), "ATTRIB: 8 bytes");
        assertEquals(0, get.getIntLE(44));
        ByteBuf set = encode(NvmeCommands.propertySet(ControllerRegisters.CC, false, 0x460001));
        assertEquals(0x00, set.getByte(4));
        assertEquals(0, set.getByte(40));
        assertEquals(0x14, set.getIntLE(44));
        assertEquals(0x460001L, set.getLongLE(48));
    }

    @Test
    void identifySetFeaturesAndKeepAliveCarryTheirFields() {
        ByteBuf id = encode(NvmeCommands.identifyNamespace(7, ByteBuffer.allocate(4096)));
        assertEquals(0x06, id.getByte(0));
        assertEquals(7, id.getIntLE(4));
        assertEquals(0, id.getIntLE(40), "CNS 0");
        assertEquals(1, encode(NvmeCommands.identifyController(ByteBuffer.allocate(4096))).getIntLE(40));
        ByteBuf sf = encode(NvmeCommands.setNumberOfQueues(4));
        assertEquals(0x09, sf.getByte(0));
        assertEquals(7, sf.getIntLE(40), "FID Number of Queues");
        assertEquals(3 | 3 << 16, sf.getIntLE(44), "NSQR and NCQR, 0's based");
        assertEquals(0x18, encode(NvmeCommands.keepAlive()).getByte(0));
    }

    @Test
    void impossibleCommandsAreRefusedWhenMade() {
        assertThrows(IllegalArgumentException.class, () -> NvmeCommands.read(1, 0, 0, ByteBuffer.allocate(512)));
        assertThrows(IllegalArgumentException.class, () -> NvmeCommands.read(1, 0, 65537, ByteBuffer.allocate(512)));
        assertThrows(IllegalArgumentException.class, () -> NvmeCommands.identifyController(ByteBuffer.allocate(100)));
        assertThrows(IllegalArgumentException.class, () -> NvmeCommands.setNumberOfQueues(0));
        assertThrows(IllegalArgumentException.class,
                () -> NvmeCommands.connect(1, 1, 0, 0, ByteBuffer.allocate(ConnectData.LENGTH)));
        assertThrows(IllegalArgumentException.class,
                () -> NvmeCommand.of(0x01, 1, 0, 0, 0, 0, 0, 0).encode(new SubmissionEntry().wrap(Unpooled.buffer(64)
                        .writeZero(64), 0).cdw(7, 1)));
    }

    @Test
    void sglAndCompletionEntriesReadBackWhatWasWritten() {
        ByteBuf b = Unpooled.buffer(64).writeZero(64);
        SubmissionEntry sqe = new SubmissionEntry().wrap(b, 0).cid(0xBEEF).flags(SubmissionEntry.FLAGS_SGL)
                .sgl(0, 0x12345, SubmissionEntry.SGL_TRANSPORT_DATA_BLOCK);
        assertEquals(0xBEEF, sqe.cid());
        assertEquals(0x40, b.getByte(1));
        assertEquals(0x12345, b.getIntLE(32));
        assertEquals(0x5A, b.getByte(39));
        ByteBuf c = Unpooled.buffer(16).writeZero(16);
        CompletionEntry cqe = new CompletionEntry().wrap(c, 0).set(0x1_0000_0002L, 9, 3, 0x77, 0x4080 << 1);
        assertEquals(2, cqe.dw0());
        assertEquals(0x1_0000_0002L, cqe.result());
        assertEquals(9, cqe.sqHead());
        assertEquals(3, cqe.sqId());
        assertEquals(0x77, c.getShortLE(12));
        assertEquals(0x80, NvmeStatus.fromCqeHalfword(cqe.statusHalfword()).sc());
    }

    @Test
    void connectDataHoldsHostIdControllerIdAndBothNqns() {
        UUID host = UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");
        ByteBuffer d = ConnectData.encode(host, 0x1234, "nqn.2024-01.io.creel:lab", "nqn.2014-08.org.nvmexpress:uuid:x");
        assertEquals(1024, d.remaining());
        assertEquals(0x01, d.get(0));
        assertEquals((byte) 0xef, d.get(15));
        assertEquals(0x34, d.get(16));
        assertEquals(0x12, d.get(17));
        assertEquals('n', d.get(256));
        assertEquals(host, ConnectData.hostId(d));
        assertEquals(0x1234, ConnectData.controllerId(d));
        assertEquals("nqn.2024-01.io.creel:lab", ConnectData.subsystemNqn(d));
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:x", ConnectData.hostNqn(d));
        assertThrows(IllegalArgumentException.class, () -> ConnectData.encode(host, 1, "", "h"));
        assertThrows(IllegalArgumentException.class, () -> ConnectData.encode(host, 1, "x".repeat(224), "h"));
        assertThrows(IllegalArgumentException.class, () -> ConnectData.encode(host, 1, "a\0b", "h"));
    }
}
