package io.creel.storage.nvmf.tcp;

import static io.creel.storage.nvmf.tcp.Await.done;
import static io.creel.storage.nvmf.tcp.Await.failure;
import static io.creel.storage.nvmf.tcp.Await.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.nvme.CompletionEntry;
import io.creel.storage.nvmf.nvme.Opcodes;
import io.creel.storage.nvmf.tcp.pdu.CapsuleResponsePdu;
import io.creel.storage.nvmf.tcp.pdu.CommonHeader;
import io.creel.storage.nvmf.tcp.pdu.DataPdu;
import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.IcRespPdu;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.creel.storage.nvmf.tcp.pdu.R2tPdu;
import io.creel.storage.nvmf.tcp.pdu.TermReqPdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A target that sends malformed or unexpected PDUs: the queue they arrive on is closed with a
 * logged reason and an H2CTermReq, the command fails with {@link NvmfException.Kind#PROTOCOL}, and
 * the rest of the controller carries on.
 */
class MalformedTargetTest {
    private FakeTarget target;
    private NvmeTcpEventLoops loops;
    private NvmeTcpController controller;

    @BeforeEach
    void start() throws Exception {
        target = new FakeTarget(512, 1024);
        loops = NvmeTcpEventLoops.nio(2, "malformed-test");
    }

    @AfterEach
    void stop() {
        if (controller != null) {
            controller.close();
        }
        loops.close();
        target.close();
    }

    private static byte[] bytes(ByteBuf b) {
        return ByteBufUtil.getBytes(b);
    }

    /** A PDU built for the CID of the command it answers. */
    private static IntFunction<byte[]> pdu(IntFunction<ByteBuf> f) {
        return cid -> bytes(f.apply(cid));
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("an unknown PDU type", Opcodes.IO_READ, pdu(cid -> Unpooled.buffer()
                        .writeByte(0x0B).writeByte(0).writeByte(24).writeByte(0).writeIntLE(24).writeZero(16)),
                        "PDU type 0x0b", "Invalid PDU Header Field FEI 0"),
                Arguments.of("a response for a CID with nothing outstanding", Opcodes.IO_READ, pdu(cid -> {
                    ByteBuf b = Unpooled.buffer();
                    int at = CapsuleResponsePdu.encodeHeader(b, false);
                    new CompletionEntry().wrap(b, at).set(0, 0, 1, 1000, 0);
                    return b;
                }), "CID 1000, which has no outstanding command", "Invalid PDU Header Field FEI 20"),
                Arguments.of("C2HData for a write", Opcodes.IO_WRITE, pdu(cid -> c2h(cid, 0, 512,
                        CommonHeader.FLAG_LAST_PDU)), "which reads no data", "Invalid PDU Header Field FEI 8"),
                Arguments.of("an R2T for a read", Opcodes.IO_READ, pdu(cid -> {
                    ByteBuf b = Unpooled.buffer();
                    R2tPdu.encode(b, false, cid, cid, 0, 512);
                    return b;
                }), "no data to send", "Invalid PDU Header Field FEI 8"),
                Arguments.of("C2HData past the end of the transfer", Opcodes.IO_READ, pdu(cid -> c2h(cid, 256, 512,
                        CommonHeader.FLAG_LAST_PDU)), "512 bytes at offset 256 of a 512-byte transfer",
                        "Data Transfer Out of Range FEI 12"),
                Arguments.of("SUCCESS without LAST_PDU", Opcodes.IO_READ, pdu(cid -> c2h(cid, 0, 512,
                        CommonHeader.FLAG_SUCCESS)), "SUCCESS but without LAST_PDU", "Invalid PDU Header Field FEI 1"),
                Arguments.of("a second ICResp", Opcodes.IO_READ, pdu(cid -> {
                    ByteBuf b = Unpooled.buffer();
                    IcRespPdu.encode(b, 0, false, false, 0, 65536);
                    return b;
                }), "a second ICResp", "PDU Sequence Error FEI 0"),
                Arguments.of("a header digest nobody negotiated", Opcodes.IO_READ, pdu(cid -> {
                    ByteBuf b = Unpooled.buffer();
                    int at = CapsuleResponsePdu.encodeHeader(b, true);
                    new CompletionEntry().wrap(b, at).set(0, 0, 1, cid, 0);
                    return b.writeIntLE(0);
                }), "header digest flag set but header digests are off", "Invalid PDU Header Field FEI 1"));
    }

    private static ByteBuf c2h(int cid, long offset, int length, int flags) {
        ByteBuf b = Unpooled.buffer();
        DataPdu.encodeHeader(b, PduType.C2H_DATA, flags, false, false, cid, 0, offset, length);
        return b.writeZero(length);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void closesTheQueueWithAReasonAndATermReq(String what, int opcode, IntFunction<byte[]> answer, String reason,
            String termReq) throws Exception {
        target.hook = c -> c.opcode() == opcode ? new FakeTarget.Raw(answer.apply(c.cid())) : FakeTarget.NORMAL;
        controller = done(NvmeTcpController.connect(target.endpoint(), NvmeTcpOptions.defaults(), loops));
        NvmeNamespace ns = done(controller.namespace(1));
        ByteBuffer buf = ByteBuffer.allocate(512);
        NvmfException e = failure(opcode == Opcodes.IO_READ ? ns.read(9, buf) : ns.write(9, buf));
        assertEquals(NvmfException.Kind.PROTOCOL, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("malformed or unexpected PDU") && e.getMessage().contains(reason),
                e.getMessage());
        until("the target receives an H2CTermReq", () -> !target.termReqs.isEmpty());
        assertEquals(List.of(termReq), target.termReqs);
        until("only that I/O queue closes", () -> controller.liveIoQueues() == 1);
        assertTrue(controller.isAlive());
        target.hook = c -> FakeTarget.NORMAL;
        byte[] data = new byte[512];
        data[7] = 7;
        done(ns.write(1, ByteBuffer.wrap(data)));
        ByteBuffer back = ByteBuffer.allocate(512);
        done(ns.read(1, back));
        assertArrayEquals(data, back.array());
    }

    @Test
    void aTermReqFromTheTargetClosesTheQueueWithItsReasonAndNoTermReqBack() throws Exception {
        ByteBuf term = Unpooled.buffer();
        TermReqPdu.encode(term, PduType.C2H_TERM_REQ, FatalErrorStatus.PDU_SEQUENCE_ERROR, 8, null);
        byte[] raw = bytes(term);
        target.hook = c -> c.opcode() == Opcodes.IO_READ ? new FakeTarget.Raw(raw) : FakeTarget.NORMAL;
        controller = done(NvmeTcpController.connect(target.endpoint(), NvmeTcpOptions.defaults(), loops));
        NvmeNamespace ns = done(controller.namespace(1));
        NvmfException e = failure(ns.read(0, ByteBuffer.allocate(512)));
        assertEquals(NvmfException.Kind.PROTOCOL, e.kind());
        assertTrue(e.getMessage().contains("terminated by the target: PDU Sequence Error (FEI 0x8)"), e.getMessage());
        until("that queue closes", () -> controller.liveIoQueues() == 1);
        assertTrue(target.termReqs.isEmpty(), "a TermReq is not answered with one");
    }

    @Test
    void aWrongHeaderDigestFromTheTargetIsFatalForThatQueue() throws Exception {
        target.hook = c -> c.opcode() == Opcodes.IO_READ ? new FakeTarget.CorruptHeaderDigest() : FakeTarget.NORMAL;
        controller = done(NvmeTcpController.connect(target.endpoint(),
                NvmeTcpOptions.defaults().withDigests(true, true), loops));
        NvmeNamespace ns = done(controller.namespace(1));
        NvmfException e = failure(ns.read(0, ByteBuffer.allocate(4096)));
        assertEquals(NvmfException.Kind.PROTOCOL, e.kind());
        assertTrue(e.getMessage().contains("Header Digest Error"), e.getMessage());
        until("the target receives an H2CTermReq", () -> !target.termReqs.isEmpty());
        assertEquals("Header Digest Error FEI 0", target.termReqs.get(0));
    }

    @Test
    void aWrongDataDigestFailsOnlyThatReadAndTheQueueCarriesOn() throws Exception {
        target.hook = c -> c.opcode() == Opcodes.IO_READ && c.slba() == 4 ? new FakeTarget.CorruptDataDigest()
                : FakeTarget.NORMAL;
        controller = done(NvmeTcpController.connect(target.endpoint(),
                NvmeTcpOptions.defaults().withDigests(false, true).withIoQueues(1, 8), loops));
        NvmeNamespace ns = done(controller.namespace(1));
        NvmfException e = failure(ns.read(4, ByteBuffer.allocate(1024)));
        assertEquals(NvmfException.Kind.DATA_DIGEST, e.kind());
        assertTrue(e.getMessage().contains("Read nsid 1 slba 4") && e.getMessage().contains("data digest"),
                e.getMessage());
        assertEquals(1, controller.liveIoQueues());
        done(ns.read(5, ByteBuffer.allocate(1024)));
    }

    @Test
    void aResponseWithTooFewDataBytesFailsTheReadButNotTheQueue() throws Exception {
        target.hook = c -> {
            if (c.opcode() != Opcodes.IO_READ || c.slba() != 2) {
                return FakeTarget.NORMAL;
            }
            ByteBuf b = c2h(c.cid(), 0, 256, CommonHeader.FLAG_LAST_PDU);
            int at = CapsuleResponsePdu.encodeHeader(b, false);
            new CompletionEntry().wrap(b, at).set(0, 0, 1, c.cid(), 0);
            return new FakeTarget.Raw(bytes(b));
        };
        controller = done(NvmeTcpController.connect(target.endpoint(),
                NvmeTcpOptions.defaults().withIoQueues(1, 8).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5)),
                loops));
        NvmeNamespace ns = done(controller.namespace(1));
        NvmfException e = failure(ns.read(2, ByteBuffer.allocate(512)));
        assertEquals(NvmfException.Kind.PROTOCOL, e.kind());
        assertTrue(e.getMessage().contains("after only 256 of 512 bytes"), e.getMessage());
        assertEquals(1, controller.liveIoQueues());
        done(ns.read(3, ByteBuffer.allocate(512)));
    }
}
