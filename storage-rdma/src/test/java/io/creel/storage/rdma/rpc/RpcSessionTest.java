package io.creel.storage.rdma.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.Wire;
import io.creel.common.rpc.Frames;
import io.creel.common.rpc.PayloadCheck;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcPeer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The server's side of an rdma:// client without DaRPC: frames in through the same dispatch as TCP,
 * replies out in the exchange of their request, from any thread; hostile input drops that client
 * only, and ends its connection state.
 */
class RpcSessionTest {
    private static final int CAPACITY = 512;

    /** An exchange as DaRPC would hand it: a received request, a reply slot, a send. */
    private static final class Exchange implements RpcSession.Exchange {
        final FrameMessage request = new FrameMessage(CAPACITY);
        final FrameMessage reply = new FrameMessage(CAPACITY);
        final CompletableFuture<ByteBuf> sent = new CompletableFuture<>();

        Exchange(ByteBuf frame) {
            ByteBuffer wire = ByteBuffer.allocate(CAPACITY + 100);
            wire.put(frame.nioBuffer()).flip();
            request.update(wire);
            frame.release();
        }

        @Override
        public FrameMessage request() {
            return request;
        }

        @Override
        public FrameMessage reply() {
            return reply;
        }

        @Override
        public void send() {
            ByteBuffer wire = ByteBuffer.allocate(CAPACITY);
            reply.write(wire);
            wire.flip();
            sent.complete(Unpooled.wrappedBuffer(wire));
        }

        /** The reply's status and body, after checking it answers request {@code id}. */
        ByteBuf replyTo(long id) throws Exception {
            ByteBuf f = sent.get(10, TimeUnit.SECONDS);
            f.readInt();
            f.readUnsignedByte();
            assertEquals(Frame.FLAG_RESPONSE | Frame.versionFlags(), f.readUnsignedByte());
            assertEquals(id, f.readLong(), "the reply names its request");
            return f;
        }
    }

    private final List<String> drops = new ArrayList<>();
    private final List<RpcPeer> closedConnections = new ArrayList<>();
    private final List<RpcCall> calls = new ArrayList<>();
    private final List<String> paths = new ArrayList<>();

    private RpcSession session(RequestHandler handler) {
        return new RpcSession("namenode", "/10.0.2.15:4711", new RequestHandler() {
            @Override
            public void handle(RpcCall call) {
                calls.add(call);
                if (call.opcode() == Opcode.LOOKUP) {
                    paths.add(LookupRequest.decode(call.body().duplicate()).path()); // the body lives during handle only
                }
                handler.handle(call);
            }

            @Override
            public void connectionClosed(RpcPeer peer) {
                closedConnections.add(peer);
            }
        }, CAPACITY, drops::add);
    }

    private static ByteBuf lookup(long id, String path) {
        return Frames.request(ByteBufAllocator.DEFAULT, Opcode.LOOKUP, id, new LookupRequest(path, false));
    }

    @Test
    void aRequestIsServedAndItsReplyGoesBackInItsExchangeEvenFromAnotherThread() throws Exception {
        CompletableFuture<RpcCall> held = new CompletableFuture<>();
        RpcSession s = session(held::complete);
        Exchange first = new Exchange(lookup(7, "/a"));
        Exchange second = new Exchange(lookup(8, "/b"));
        s.received(first);
        s.received(second);
        assertEquals(2, s.waiting());
        assertEquals(List.of("/a", "/b"), paths, "each request reached the handler");
        assertSame(s, calls.get(1).peer(), "the session names the client");

        // The second is answered first, from another thread: each reply finds its own exchange.
        CompletableFuture.runAsync(() -> calls.get(1).fail(new CreelException(ErrorCode.NOT_FOUND, "/b: no such node")))
                .get(10, TimeUnit.SECONDS);
        ByteBuf b = second.replyTo(8);
        assertEquals(ErrorCode.NOT_FOUND.code(), b.readUnsignedShort());
        assertEquals("/b: no such node", Wire.readString(b, "message"));
        assertTrue(!first.sent.isDone());
        calls.get(0).reply(new LookupRequest("/answer", true));
        ByteBuf a = first.replyTo(7);
        assertEquals(Frame.STATUS_OK, a.readUnsignedShort());
        assertEquals("/answer", LookupRequest.decode(a).path());
        assertEquals(0, s.waiting());
        assertTrue(drops.isEmpty());
    }

    @Test
    void aHandlersErrorIsAnErrorReplyAndTheClientStays() throws Exception {
        RpcSession s = session(call -> {
            throw new CreelException(ErrorCode.INVALID_NAME, "bad name");
        });
        Exchange e = new Exchange(lookup(1, "/x"));
        s.received(e);
        assertEquals(ErrorCode.INVALID_NAME.code(), e.replyTo(1).readUnsignedShort());
        assertTrue(drops.isEmpty());
    }

    @Test
    void aReplyTooLargeForAMessageBecomesALimitExceededErrorNamingTheKey() throws Exception {
        RpcSession s = session(call -> call.reply(new LookupRequest("/" + "x".repeat(2 * CAPACITY), false)));
        Exchange e = new Exchange(lookup(3, "/x"));
        s.received(e);
        ByteBuf r = e.replyTo(3);
        assertEquals(ErrorCode.LIMIT_EXCEEDED.code(), r.readUnsignedShort());
        String msg = Wire.readString(r, "message");
        assertTrue(msg.contains("exceeds the rdma:// message size of 512 bytes (raise creel.rdma.rpc.message.size"),
                msg);
    }

    @Test
    void aMalformedFrameDropsTheClientEndingItsConnectionState() {
        RpcSession s = session(call -> call.reply(new LookupRequest("/", false)));
        ByteBuf tooShort = Unpooled.buffer().writeInt(3).writeByte(1).writeByte(0).writeByte(0);
        s.received(new Exchange(tooShort));
        assertEquals(1, drops.size());
        assertTrue(drops.get(0).contains("malformed frame"), drops.get(0));
        assertEquals(List.of(s), closedConnections, "the namenode hears the connection is gone");
        assertTrue(calls.isEmpty(), "nothing was dispatched");
    }

    @Test
    void anUnknownOpcodeOrAReusedRequestIdDropsTheClient() {
        RpcSession s = session(call -> {
            // never answers
        });
        s.received(new Exchange(lookup(5, "/a")));
        s.received(new Exchange(lookup(5, "/b")));
        assertEquals(List.of("request id 5 reused while the first is unanswered"), drops);

        List<String> others = new ArrayList<>();
        RpcSession t = new RpcSession("namenode", "peer", call -> { }, CAPACITY, others::add);
        ByteBuf unknown = Unpooled.buffer().writeInt(10).writeByte(250).writeByte(0).writeLong(1);
        t.received(new Exchange(unknown));
        assertEquals(List.of("unknown opcode 250 (no core opcode, and no tier on this server's class path declares "
                + "it)"), others);
    }

    @Test
    void repliesAfterTheClientWentAreDroppedQuietly() {
        RpcSession s = session(call -> { });
        Exchange e = new Exchange(lookup(9, "/a"));
        s.received(e);
        s.drop(null);
        assertEquals(1, drops.size());
        assertNull(drops.get(0), "a plain close logs no reason");
        calls.get(0).reply(new LookupRequest("/late", false));
        assertTrue(!e.sent.isDone(), "nothing is sent for a gone client");
        s.drop("again");
        assertEquals(1, drops.size(), "dropped once");
    }

    @Test
    void aPayloadReplyFromMemoryIsCopiedIntoItsExchangeCheckedAfterTheCopyAndItsMemoryReleasedOnce() throws Exception {
        byte[] bytes = "block bytes".getBytes(StandardCharsets.US_ASCII);
        List<String> events = new ArrayList<>();
        RpcSession s = session(call -> call.replyPayload(ByteBuffer.wrap(bytes), new PayloadCheck() {
            @Override
            public CreelException afterSending() {
                events.add("checked");
                return new CreelException(ErrorCode.STALE_BLOCK, "reused meanwhile");
            }

            @Override
            public void released() {
                events.add("released");
            }
        }));
        Exchange e = new Exchange(lookup(4, "/a"));
        s.received(e);
        ByteBuf r = e.replyTo(4);
        assertEquals(Frame.STATUS_OK, r.readUnsignedShort());
        byte[] payload = new byte[bytes.length];
        r.readBytes(payload);
        assertEquals("block bytes", new String(payload, StandardCharsets.US_ASCII));
        assertEquals(ErrorCode.STALE_BLOCK.code(), r.readUnsignedShort(), "the check's verdict follows the payload");
        assertEquals(0, r.readableBytes());
        assertEquals(List.of("checked", "released"), events);
    }

    @Test
    void theSessionIsOpenUntilDroppedAndRunsConnectionTimersWithoutAnEventLoop() throws Exception {
        RpcSession s = session(call -> { });
        assertTrue(s.isOpen());
        CompletableFuture<String> ran = new CompletableFuture<>();
        s.schedule(() -> ran.complete(Thread.currentThread().getName()), 1, TimeUnit.MILLISECONDS);
        assertTrue(ran.get(10, TimeUnit.SECONDS).contains("timer"), "a lease hold's end runs on the DaRPC timer");
        s.drop(null);
        assertFalse(s.isOpen(), "closed once dropped, before the handler hears of it");
        assertEquals(List.of(s), closedConnections);
    }
}
