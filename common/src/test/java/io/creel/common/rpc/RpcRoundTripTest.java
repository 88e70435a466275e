package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The RPC layer: pipelining, error replies, timeouts, and hostile peers. */
class RpcRoundTripTest {
    private EventLoops loops;
    private RpcServer server;

    /** Answers LOOKUP with the path's length as a RegisterReply; "/slow" is never answered; "/fail" errors. */
    private final RequestHandler handler = call -> {
        if (call.opcode() == Opcode.BLOCK_WRITE) { // echo the payload's size and first byte
            io.creel.common.protocol.BlockWriteHeader.decode(call.body());
            int size = call.body().readableBytes();
            call.reply(new RegisterReply(size * 1000 + (call.body().getByte(call.body().readerIndex()) & 0xff), 0));
            return;
        }
        LookupRequest r = LookupRequest.decode(call.body());
        switch (r.path()) {
            case "/slow" -> { /* never replies: the client must time out */ }
            case "/fail" -> throw new CreelException(ErrorCode.NOT_FOUND, "/fail: no such node");
            default -> call.reply(new RegisterReply(r.path().length(), 0));
        }
    };

    @BeforeEach
    void start() {
        loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2"), "test");
        server = RpcServer.start("test", "127.0.0.1", 0, loops, 1 << 20, handler);
    }

    @AfterEach
    void stop() {
        server.close();
        loops.close();
    }

    private RpcClient connect(Duration timeout) {
        return RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops, 1 << 20, Duration.ofSeconds(5), timeout)
                .join();
    }

    @Test
    void manyRequestsInFlightOnOneConnectionAreMatchedById() {
        try (RpcClient c = connect(Duration.ofSeconds(10))) {
            List<CompletableFuture<RegisterReply>> calls = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                calls.add(c.call(Opcode.LOOKUP, new LookupRequest("/" + "x".repeat(i % 50), false), RegisterReply::decode));
            }
            for (int i = 0; i < calls.size(); i++) {
                assertEquals(1 + i % 50, calls.get(i).join().serverId());
            }
        }
    }

    @Test
    void framesWithPayloadsFromManyThreadsNeverInterleaveOnTheWire() throws Exception {
        try (RpcClient c = connect(Duration.ofSeconds(30))) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                List<java.util.concurrent.Future<?>> threads = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    int seed = t;
                    threads.add(pool.submit(() -> {
                        List<CompletableFuture<RegisterReply>> calls = new ArrayList<>();
                        List<Integer> expected = new ArrayList<>();
                        for (int i = 0; i < 300; i++) {
                            int size = 1 + (i * 37 + seed * 101) % 900;
                            byte first = (byte) (i + seed);
                            io.netty.buffer.ByteBuf payload = io.netty.buffer.Unpooled.buffer(size).writeZero(size);
                            payload.setByte(0, first);
                            calls.add(c.callWithPayload(Opcode.BLOCK_WRITE,
                                    new io.creel.common.protocol.BlockWriteHeader(1, 1, 0), payload, RegisterReply::decode));
                            expected.add(size * 1000 + (first & 0xff));
                        }
                        for (int i = 0; i < calls.size(); i++) {
                            assertEquals(expected.get(i), calls.get(i).join().serverId());
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : threads) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void errorRepliesCarryCodeAndMessage() {
        try (RpcClient c = connect(Duration.ofSeconds(10))) {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> c.call(Opcode.LOOKUP, new LookupRequest("/fail", false), RegisterReply::decode).join());
            CreelException ce = CreelException.unwrap(e);
            assertEquals(ErrorCode.NOT_FOUND, ce.code());
            assertEquals("/fail: no such node", ce.getMessage());
        }
    }

    @Test
    void anUnansweredRequestTimesOut() {
        try (RpcClient c = connect(Duration.ofMillis(200))) {
            CompletionException e = assertThrows(CompletionException.class,
                    () -> c.call(Opcode.LOOKUP, new LookupRequest("/slow", false), RegisterReply::decode).join());
            assertEquals(ErrorCode.TIMEOUT, CreelException.unwrap(e).code());
            assertEquals(0, c.inFlight());
        }
    }

    @Test
    void connectingToAClosedPortFailsWithUnavailable() {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        CompletionException e = assertThrows(CompletionException.class, () -> RpcClient.connect(
                new HostPort("127.0.0.1", port), loops, 1 << 20, Duration.ofSeconds(2), Duration.ofSeconds(2)).join());
        assertEquals(ErrorCode.UNAVAILABLE, CreelException.unwrap(e).code());
    }

    @Test
    void garbageAndOversizedFramesCloseOnlyThatConnection() throws Exception {
        try (RpcClient good = connect(Duration.ofSeconds(10))) {
            assertClosedAfter(new byte[] {0, 0, 0, 3, 1, 2, 3});                 // shorter than a header
            assertClosedAfter(new byte[] {0, 0, 0, 10, 99, 0, 0, 0, 0, 0, 0, 0, 0, 1}); // unknown opcode
            assertClosedAfter(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // 2 GiB frame announced
            assertClosedAfter(new byte[] {0, 0, 0, 12, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 50}); // truncated body
            assertEquals(5, good.call(Opcode.LOOKUP, new LookupRequest("/abcd", false), RegisterReply::decode)
                    .get(5, TimeUnit.SECONDS).serverId(), "the server keeps serving other clients");
        }
    }

    @Test
    void aPeerThatStopsInTheMiddleOfAFrameIsDisconnectedButAnIdleOneIsNot() throws Exception {
        try (RpcServer strict = RpcServer.start("strict", "127.0.0.1", 0, loops, 1 << 20, Duration.ofMillis(300),
                handler);
             Socket partial = new Socket("127.0.0.1", strict.port());
             Socket idle = new Socket("127.0.0.1", strict.port())) {
            partial.setSoTimeout(10_000);
            partial.getOutputStream().write(new byte[] {0, 0, 0, 40, 2, 0}); // 6 of 44 bytes, then silence
            partial.getOutputStream().flush();
            assertEquals(-1, partial.getInputStream().read(), "an incomplete frame is not waited for forever");
            idle.setSoTimeout(1000);
            assertThrows(java.net.SocketTimeoutException.class, () -> idle.getInputStream().read(),
                    "a connection with nothing half-sent stays open");
        }
    }

    private void assertClosedAfter(byte[] bytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            assertTrue(in.read() == -1, "server should close a connection that sent a malformed frame");
        }
    }
}
