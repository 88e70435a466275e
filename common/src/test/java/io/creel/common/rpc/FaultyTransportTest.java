package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The test transport that cuts connections: each cut point does what other modules' tests rely on. */
class FaultyTransportTest {
    private final AtomicInteger served = new AtomicInteger();
    private final CountDownLatch servedOne = new CountDownLatch(1);
    private EventLoops loops;
    private RpcServer server;
    private RpcConnection connection;
    private final FaultyTransport faulty = new FaultyTransport();

    @BeforeEach
    void start() throws Exception {
        CreelConf conf = CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2");
        loops = EventLoops.create(conf, "faulty-test");
        server = RpcServer.start("test", "127.0.0.1", 0, loops, 1 << 20, call -> {
            served.incrementAndGet();
            call.reply(new RegisterReply(LookupRequest.decode(call.body()).path().length(), 0));
            servedOne.countDown();
        });
        connection = faulty.connect(new HostPort("faulty", "127.0.0.1", server.port()), new RpcTransport.Context(conf,
                loops, 1 << 20, Duration.ofSeconds(5), Duration.ofSeconds(10))).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() {
        FaultyTransport.disarm();
        connection.close();
        server.close();
        loops.close();
    }

    private CreelException failureOf(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return CreelException.unwrap(e);
        }
        throw new AssertionError("the call succeeded");
    }

    @Test
    void anUnarmedConnectionIsPlainTcp() throws Exception {
        assertEquals(2, connection.call(Opcode.LOOKUP, new LookupRequest("/a", false), RegisterReply::decode)
                .get(10, TimeUnit.SECONDS).serverId());
        assertTrue(connection.isOpen());
    }

    @Test
    void aCutBeforeSendingKeepsTheRequestFromTheServer() throws Exception {
        int before = FaultyTransport.cuts();
        FaultyTransport.arm(Opcode.LOOKUP, FaultyTransport.Cut.BEFORE_SEND);
        CreelException e = failureOf(connection.call(Opcode.LOOKUP, new LookupRequest("/a", false),
                RegisterReply::decode));
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("before the LOOKUP request was sent"), e.getMessage());
        assertFalse(connection.isOpen());
        assertEquals(before + 1, FaultyTransport.cuts());
        assertFalse(servedOne.await(200, TimeUnit.MILLISECONDS), "the server saw the request");
    }

    @Test
    void aCutAfterSendingLetsTheServerServeTheRequestButLosesTheReply() throws Exception {
        FaultyTransport.arm(Opcode.LOOKUP, FaultyTransport.Cut.AFTER_SEND);
        CreelException e = failureOf(connection.call(Opcode.LOOKUP, new LookupRequest("/a", false),
                RegisterReply::decode));
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("after the LOOKUP request was sent"), e.getMessage());
        assertTrue(servedOne.await(10, TimeUnit.SECONDS), "the server never saw the request");
    }

    @Test
    void aCutAfterTheReplyFailsTheCallerOfAnAnsweredRequestAndRunsTheFollowUpFirst() throws Exception {
        CountDownLatch followedUp = new CountDownLatch(1);
        FaultyTransport.arm(new FaultyTransport.Fault(Opcode.LOOKUP, FaultyTransport.Cut.AFTER_REPLY,
                followedUp::countDown));
        CreelException e = failureOf(connection.call(Opcode.LOOKUP, new LookupRequest("/a", false),
                RegisterReply::decode));
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("after the LOOKUP reply arrived (success)"), e.getMessage());
        assertEquals(1, served.get());
        assertEquals(0, followedUp.getCount(), "the follow-up ran before the caller heard of the cut");
    }

    @Test
    void aCutIsTakenOnceAndOnlyByItsOpcode() throws Exception {
        FaultyTransport.arm(Opcode.CREATE, FaultyTransport.Cut.BEFORE_SEND);
        connection.call(Opcode.LOOKUP, new LookupRequest("/a", false), RegisterReply::decode).get(10, TimeUnit.SECONDS);
        assertTrue(connection.isOpen());
        assertTrue(FaultyTransport.disarm(), "the CREATE cut is still armed");
    }
}
