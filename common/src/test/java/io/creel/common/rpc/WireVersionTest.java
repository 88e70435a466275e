package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wire protocol's version in every frame: what this release sends, and a peer of a newer
 * release refused by both sides with a message naming both versions.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WireVersionTest {
    /** Every version bit set: whatever this release's version bits, a frame of these is of a newer one. */
    private static final int NEWER_FLAGS = 0xF0;
    private static final int NEWER_VERSION = Frame.versionOf(NEWER_FLAGS);

    private EventLoops loops;

    @BeforeEach
    void start() {
        loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "1"), "test");
    }

    @AfterEach
    void stop() {
        loops.close();
    }

    private static byte[] bytes(ByteBuf frame) {
        byte[] b = new byte[frame.readableBytes()];
        frame.readBytes(b);
        frame.release();
        return b;
    }

    @Test
    void everyFrameThisReleaseWritesSaysItsVersion() {
        ByteBuf request = Frames.request(ByteBufAllocator.DEFAULT, Opcode.LOOKUP, 1, new LookupRequest("/x", false));
        ByteBuf reply = Frames.ok(ByteBufAllocator.DEFAULT, Opcode.LOOKUP, 1, new RegisterReply(1, 2));
        assertEquals(Frame.WIRE_VERSION, Frame.versionOf(request.getUnsignedByte(Frame.LENGTH_FIELD + 1)));
        assertEquals(Frame.WIRE_VERSION, Frame.versionOf(reply.getUnsignedByte(Frame.LENGTH_FIELD + 1)));
        request.release();
        reply.release();
        assertEquals(1, Frame.versionOf(Frame.FLAG_RESPONSE | Frame.FLAG_IDENTIFIED),
                "flags without version bits, as releases before the field sent them, are version 1");
    }

    @Test
    void aServerAnswersARequestOfANewerVersionWithAnErrorNamingBothVersions() throws Exception {
        RequestHandler handler = call -> call.reply(new RegisterReply(1, 0));
        try (RpcServer server = RpcServer.start("namenode", "127.0.0.1", 0, loops, 1 << 20, handler);
             Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            ByteBuf frame = Frames.begin(ByteBufAllocator.DEFAULT, 32, Opcode.LOOKUP, NEWER_FLAGS, 7);
            new LookupRequest("/x", false).encode(frame);
            new DataOutputStream(s.getOutputStream()).write(bytes(Frames.finish(frame)));
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = new byte[in.readInt()];
            in.readFully(reply);
            ByteBuf r = Unpooled.wrappedBuffer(reply);
            assertEquals(Opcode.LOOKUP.code(), r.readUnsignedByte());
            assertTrue((r.readUnsignedByte() & Frame.FLAG_RESPONSE) != 0);
            assertEquals(7, r.readLong());
            assertEquals(ErrorCode.PROTOCOL.code(), r.readUnsignedShort());
            String message = Wire.readString(r, "message");
            assertTrue(message.contains("speaks wire protocol version " + Frame.WIRE_VERSION + " and got a LOOKUP "
                    + "request of version " + NEWER_VERSION), message);
        }
    }

    @Test
    void aClientRefusesAReplyOfANewerVersionNamingBothVersions() throws Exception {
        try (ServerSocket newer = new ServerSocket(0)) {
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                try (Socket s = newer.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] request = new byte[in.readInt()];
                    in.readFully(request);
                    long id = Unpooled.wrappedBuffer(request).getLong(2);
                    ByteBuf reply = Frames.begin(ByteBufAllocator.DEFAULT, 32, Opcode.LOOKUP,
                            Frame.FLAG_RESPONSE | NEWER_FLAGS, id);
                    reply.writeShort(Frame.STATUS_OK);
                    new RegisterReply(1, 0).encode(reply);
                    new DataOutputStream(s.getOutputStream()).write(bytes(Frames.finish(reply)));
                    s.setSoTimeout(10_000);
                    in.read(); // until the client hangs up
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (RpcClient c = RpcClient.connect(new HostPort("127.0.0.1", newer.getLocalPort()), loops, 1 << 20,
                    Duration.ofSeconds(5), Duration.ofSeconds(10)).join()) {
                CompletionException e = assertThrows(CompletionException.class, () -> c.call(Opcode.LOOKUP,
                        new LookupRequest("/x", false), RegisterReply::decode).join());
                String message = CreelException.unwrap(e).getMessage();
                assertTrue(message.contains("replied in wire protocol version " + NEWER_VERSION)
                        && message.contains("speaks version " + Frame.WIRE_VERSION), message);
            }
            peer.get(10, TimeUnit.SECONDS);
        }
    }
}
