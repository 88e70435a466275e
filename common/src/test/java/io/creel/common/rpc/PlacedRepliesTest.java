package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replies whose payload goes straight into the caller's buffer ({@link RpcClient#callInto}): the bytes,
 * the buffer's ownership, and what happens when the reply is wrong, late or cut off.
 */
class PlacedRepliesTest {
    private static final int MAX_FRAME = 4 << 20;

    private EventLoops loops;

    @BeforeEach
    void start() {
        loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2"), "test");
    }

    @AfterEach
    void stop() {
        loops.close();
    }

    /** Byte {@code i} of the payload a server sends for a read at {@code offset}. */
    private static byte byteAt(long offset, int i) {
        return (byte) ((offset + i) * 31 + ((offset + i) >>> 9));
    }

    /** Answers BLOCK_READ with {@code length} bytes of {@link #byteAt}(offset); LOOKUP with the path's length. */
    private final RequestHandler server = call -> {
        if (call.opcode() == Opcode.LOOKUP) {
            call.reply(new RegisterReply(LookupRequest.decode(call.body()).path().length(), 0));
            return;
        }
        BlockReadRequest r = BlockReadRequest.decode(call.body());
        if (r.blockNumber() == 666) {
            throw new CreelException(ErrorCode.STALE_BLOCK, "block 666 was reused");
        }
        byte[] b = new byte[r.length()];
        for (int i = 0; i < b.length; i++) {
            b[i] = byteAt(r.offset(), i);
        }
        call.replyPayload(Unpooled.wrappedBuffer(b));
    };

    private RpcClient connect(int port, Duration timeout) {
        return RpcClient.connect(new HostPort("127.0.0.1", port), loops, MAX_FRAME, Duration.ofSeconds(5), timeout)
                .join();
    }

    @Test
    void payloadsOfAllSizesLandInTheirBuffersAmongOrdinaryRepliesOnOneConnection() {
        try (RpcServer s = RpcServer.start("test", "127.0.0.1", 0, loops, MAX_FRAME, server);
             RpcClient c = connect(s.port(), Duration.ofSeconds(30))) {
            int[] sizes = {0, 1, 100, 16 << 10, (16 << 10) + 1, 65_537, 1 << 20, (3 << 20) + 7};
            List<CompletableFuture<Void>> reads = new ArrayList<>();
            List<ByteBuffer> buffers = new ArrayList<>();
            List<CompletableFuture<RegisterReply>> lookups = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < sizes.length; i++) {
                    int offset = round * 1000 + i;
                    // direct and heap buffers, with the part to fill in the middle
                    ByteBuffer whole = (i + round) % 2 == 0 ? ByteBuffer.allocateDirect(sizes[i] + 20)
                            : ByteBuffer.allocate(sizes[i] + 20);
                    ByteBuffer dst = whole.position(7).limit(7 + sizes[i]);
                    buffers.add(dst);
                    reads.add(c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, offset, sizes[i]), dst));
                    lookups.add(c.call(Opcode.LOOKUP, new LookupRequest("/" + "x".repeat(i), false),
                            RegisterReply::decode));
                }
            }
            for (int k = 0; k < reads.size(); k++) {
                reads.get(k).join();
                ByteBuffer dst = buffers.get(k);
                int offset = (k / sizes.length) * 1000 + k % sizes.length;
                assertEquals(7, dst.position(), "the caller's position is not moved");
                for (int i = 0; i < dst.remaining(); i++) {
                    assertEquals(byteAt(offset, i), dst.get(7 + i), "read " + k + ", byte " + i);
                }
                ByteBuffer whole = dst.duplicate().clear();
                assertEquals(0, whole.get(6), "nothing before the destination is written");
                assertEquals(0, whole.get(dst.limit()), "nothing after it either");
                assertEquals(1 + k % sizes.length, lookups.get(k).join().serverId());
            }
        }
    }

    @Test
    void anErrorReplyFailsTheCallAndLeavesTheBufferAlone() {
        try (RpcServer s = RpcServer.start("test", "127.0.0.1", 0, loops, MAX_FRAME, server);
             RpcClient c = connect(s.port(), Duration.ofSeconds(10))) {
            ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
            CreelException e = failure(c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(666, 1, 0, 1 << 20), dst));
            assertEquals(ErrorCode.STALE_BLOCK, e.code());
            assertEquals("block 666 was reused", e.getMessage());
            assertEquals(0, dst.position());
        }
    }

    @Test
    void aReplyOfAnotherSizeIsAProtocolErrorAndNothingOfItLands() throws Exception {
        try (ServerSocket raw = new ServerSocket(0);
             RpcClient c = connect(raw.getLocalPort(), Duration.ofSeconds(10));
             Socket peer = raw.accept()) {
            ByteBuffer dst = ByteBuffer.allocateDirect(100);
            CompletableFuture<Void> read = c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 0, 100), dst);
            long id = readRequestId(peer);
            sendReplyHead(peer, id, 99);
            peer.getOutputStream().write(filled(99, (byte) 5));
            peer.getOutputStream().write(new byte[Frame.VERDICT]);
            CreelException e = failure(read);
            assertEquals(ErrorCode.PROTOCOL, e.code());
            assertTrue(e.getMessage().contains("99 payload bytes where 100 were asked for"), e.getMessage());
            for (int i = 0; i < 100; i++) {
                assertEquals(0, dst.get(i));
            }
        }
    }

    @Test
    void afterATimeoutTheRestOfThePayloadIsDroppedNotWrittenAndTheConnectionCarriesOn() throws Exception {
        try (ServerSocket raw = new ServerSocket(0);
             RpcClient c = connect(raw.getLocalPort(), Duration.ofMillis(300));
             Socket peer = raw.accept()) {
            int size = 256 << 10;
            ByteBuffer dst = ByteBuffer.allocateDirect(size);
            CompletableFuture<Void> read = c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 0, size), dst);
            long id = readRequestId(peer);
            sendReplyHead(peer, id, size);
            peer.getOutputStream().write(filled(size / 2, (byte) 1)); // half, then nothing until the timeout
            assertEquals(ErrorCode.TIMEOUT, failure(read).code());

            // The caller owns the buffer again and fills it; the late half must not overwrite it.
            for (int i = 0; i < size; i++) {
                dst.put(i, (byte) 9);
            }
            CompletableFuture<RegisterReply> next = c.call(Opcode.LOOKUP, new LookupRequest("/abc", false),
                    RegisterReply::decode);
            long nextId = readRequestId(peer);
            peer.getOutputStream().write(filled(size - size / 2, (byte) 2));
            peer.getOutputStream().write(new byte[Frame.VERDICT]);
            sendRegisterReply(peer, nextId, 77);
            assertEquals(77, next.get(10, TimeUnit.SECONDS).serverId(), "the connection is still in step");
            for (int i = 0; i < size; i++) {
                assertEquals(9, dst.get(i), "byte " + i + " was written after the call had failed");
            }
        }
    }

    @Test
    void aPayloadWithdrawnByItsVerdictFailsTheCallWithTheVerdictsError() throws Exception {
        try (ServerSocket raw = new ServerSocket(0);
             RpcClient c = connect(raw.getLocalPort(), Duration.ofSeconds(10));
             Socket peer = raw.accept()) {
            ByteBuffer dst = ByteBuffer.allocateDirect(70_000);
            CompletableFuture<Void> read = c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 0, 70_000), dst);
            long id = readRequestId(peer);
            sendReplyHead(peer, id, 70_000);
            peer.getOutputStream().write(filled(70_000, (byte) 4));
            new DataOutputStream(peer.getOutputStream()).writeShort(ErrorCode.STALE_BLOCK.code());
            CreelException e = failure(read);
            assertEquals(ErrorCode.STALE_BLOCK, e.code());
            assertTrue(e.getMessage().contains("withdrew the BLOCK_READ reply's bytes"), e.getMessage());

            CompletableFuture<RegisterReply> next = c.call(Opcode.LOOKUP, new LookupRequest("/x", false),
                    RegisterReply::decode);
            sendRegisterReply(peer, readRequestId(peer), 5);
            assertEquals(5, next.get(10, TimeUnit.SECONDS).serverId(), "the connection is still in step");
        }
    }

    @Test
    void aPayloadSentFromMemoryArrivesWholeAndItsCheckRunsOnceAfterTheLastByte() {
        int size = 3 << 20; // more than a socket buffer holds: the sender resumes after partial writes
        ByteBuffer memory = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) {
            memory.put(i, byteAt(0, i));
        }
        java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean withdraw = new java.util.concurrent.atomic.AtomicBoolean();
        RequestHandler fromMemory = call -> {
            BlockReadRequest r = BlockReadRequest.decode(call.body());
            call.replyPayload(memory.slice(r.offset(), r.length()), () -> {
                checks.incrementAndGet();
                return withdraw.get() ? new CreelException(ErrorCode.STALE_BLOCK, "reused") : null;
            });
        };
        try (RpcServer s = RpcServer.start("test", "127.0.0.1", 0, loops, MAX_FRAME, fromMemory);
             RpcClient c = connect(s.port(), Duration.ofSeconds(30))) {
            ByteBuffer dst = ByteBuffer.allocate(size); // a heap destination: copied, not lent
            c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 0, size), dst).join();
            for (int i = 0; i < size; i += 997) {
                assertEquals(byteAt(0, i), dst.get(i), "byte " + i);
            }
            assertEquals(1, checks.get(), "one check per reply");
            ByteBuffer direct = ByteBuffer.allocateDirect(100_000);
            c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 5, 100_000), direct).join();
            assertEquals(byteAt(0, 5), direct.get(0));
            withdraw.set(true);
            CreelException e = failure(c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 0, 1000),
                    ByteBuffer.allocateDirect(1000)));
            assertEquals(ErrorCode.STALE_BLOCK, e.code(), "a failed check withdraws the bytes: " + e);
            assertEquals(3, checks.get());
        }
    }

    @Test
    void aConnectionLostInTheMiddleOfAPayloadFailsTheCall() throws Exception {
        try (ServerSocket raw = new ServerSocket(0);
             RpcClient c = connect(raw.getLocalPort(), Duration.ofSeconds(10))) {
            ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
            CompletableFuture<Void> read = c.callInto(Opcode.BLOCK_READ, new BlockReadRequest(1, 1, 0, 1 << 20), dst);
            try (Socket peer = raw.accept()) {
                long id = readRequestId(peer);
                sendReplyHead(peer, id, 1 << 20);
                peer.getOutputStream().write(filled(100_000, (byte) 3));
            }
            assertEquals(ErrorCode.UNAVAILABLE, failure(read).code());
        }
    }

    @Test
    void aFrameAnnouncedLongerThanTheLimitClosesTheConnection() throws Exception {
        try (ServerSocket raw = new ServerSocket(0);
             RpcClient c = connect(raw.getLocalPort(), Duration.ofSeconds(10));
             Socket peer = raw.accept()) {
            CompletableFuture<RegisterReply> call = c.call(Opcode.LOOKUP, new LookupRequest("/a", false),
                    RegisterReply::decode);
            long id = readRequestId(peer);
            DataOutputStream out = new DataOutputStream(peer.getOutputStream());
            out.writeInt(MAX_FRAME + 1);
            out.writeByte(Opcode.LOOKUP.code());
            out.writeByte(Frame.FLAG_RESPONSE);
            out.writeLong(id);
            out.writeShort(Frame.STATUS_OK);
            out.flush();
            CreelException e = failure(call);
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains("reply frame of " + (MAX_FRAME + 1) + " bytes"), e.getMessage());
        }
    }

    private static byte[] filled(int n, byte b) {
        byte[] a = new byte[n];
        Arrays.fill(a, b);
        return a;
    }

    /** Reads one request frame from the raw peer and returns its id. */
    private static long readRequestId(Socket peer) throws IOException {
        peer.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(peer.getInputStream());
        int length = in.readInt();
        in.readUnsignedByte();
        in.readUnsignedByte();
        long id = in.readLong();
        in.skipNBytes(length - Frame.HEADER_AFTER_LENGTH);
        return id;
    }

    /** The head of a payload reply whose {@code payload} bytes and verdict the test sends next. */
    private static void sendReplyHead(Socket peer, long id, int payload) throws IOException {
        DataOutputStream out = new DataOutputStream(peer.getOutputStream());
        out.writeInt(Frame.HEADER_AFTER_LENGTH + 2 + payload + Frame.VERDICT);
        out.writeByte(Opcode.BLOCK_READ.code());
        out.writeByte(Frame.FLAG_RESPONSE);
        out.writeLong(id);
        out.writeShort(Frame.STATUS_OK);
        out.flush();
    }

    private static void sendRegisterReply(Socket peer, long id, int serverId) throws IOException {
        io.netty.buffer.ByteBuf body = Unpooled.buffer();
        new RegisterReply(serverId, 0).encode(body);
        DataOutputStream out = new DataOutputStream(peer.getOutputStream());
        out.writeInt(Frame.HEADER_AFTER_LENGTH + 2 + body.readableBytes());
        out.writeByte(Opcode.LOOKUP.code());
        out.writeByte(Frame.FLAG_RESPONSE);
        out.writeLong(id);
        out.writeShort(Frame.STATUS_OK);
        byte[] b = new byte[body.readableBytes()];
        body.readBytes(b);
        out.write(b);
        out.flush();
    }

    private static CreelException failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, () -> f.orTimeout(20, TimeUnit.SECONDS).join(),
                "the call must fail");
        return CreelException.unwrap(e);
    }
}
