package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.security.RpcSecurity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The limits one peer is held to ({@link ServerLimits}): requests handled at once per connection,
 * connections per address, and idle connections.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerLimitsTest {
    private EventLoops loops;
    private RpcServer server;
    /** Requests the handler holds, unanswered, until the test answers them. */
    private final LinkedBlockingQueue<RpcCall> held = new LinkedBlockingQueue<>();
    private final AtomicInteger handling = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();

    private final RequestHandler holding = call -> {
        LookupRequest.decode(call.body());
        mostAtOnce.accumulateAndGet(handling.incrementAndGet(), Math::max);
        held.add(call);
    };

    @BeforeEach
    void loops() {
        loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2"), "limits-test");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        loops.close();
    }

    private void serve(ServerLimits limits) {
        server = RpcServer.start("limits", "127.0.0.1", 0, loops, 1 << 20, Duration.ofSeconds(30), RpcSecurity.none(),
                limits, holding);
    }

    private RpcClient connect() {
        return RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops, 1 << 20, Duration.ofSeconds(5),
                Duration.ofSeconds(30)).join();
    }

    private void answerNext(int value) throws InterruptedException {
        RpcCall call = held.poll(20, TimeUnit.SECONDS);
        assertNotNull(call, "a request reached the handler");
        handling.decrementAndGet();
        call.reply(new RegisterReply(value, 0));
    }

    @Test
    void aConnectionHasAtMostMaxInFlightRequestsHandledAtOnceAndTheRestWait() throws Exception {
        serve(new ServerLimits(4, 100, Duration.ZERO));
        try (RpcClient c = connect()) {
            List<CompletableFuture<RegisterReply>> calls = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                calls.add(c.call(Opcode.LOOKUP, new LookupRequest("/" + i, false), RegisterReply::decode));
            }
            // Answered one at a time, in order: each answer lets exactly one more in.
            for (int i = 0; i < 50; i++) {
                answerNext(i);
            }
            for (int i = 0; i < 50; i++) {
                assertEquals(i, calls.get(i).join().serverId());
            }
            assertEquals(4, mostAtOnce.get(), "never more than 4 handled at once, and 4 reached");
        }
    }

    @Test
    void anotherConnectionIsServedWhileOneIsFull() throws Exception {
        serve(new ServerLimits(2, 100, Duration.ZERO));
        try (RpcClient flooding = connect(); RpcClient other = connect()) {
            List<CompletableFuture<RegisterReply>> flood = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                flood.add(flooding.call(Opcode.LOOKUP, new LookupRequest("/f", false), RegisterReply::decode));
            }
            // Two of the flood are being handled; the other connection's request gets in all the same.
            CompletableFuture<RegisterReply> mine = other.call(Opcode.LOOKUP, new LookupRequest("/mine", false),
                    RegisterReply::decode);
            RpcCall first = held.poll(20, TimeUnit.SECONDS);
            RpcCall second = held.poll(20, TimeUnit.SECONDS);
            RpcCall third = held.poll(20, TimeUnit.SECONDS);
            assertNotNull(third, "three requests handled at once: two of the flood's and the other connection's");
            for (RpcCall call : List.of(first, second, third)) {
                handling.decrementAndGet();
                call.reply(new RegisterReply(7, 0));
            }
            assertEquals(7, mine.join().serverId());
            for (int i = 3; i < 21; i++) {
                answerNext(1);
            }
            flood.forEach(CompletableFuture::join);
            assertEquals(3, mostAtOnce.get(), "two of one connection and one of the other");
        }
    }

    @Test
    void connectionsBeyondTheLimitPerAddressAreClosedAtOnce() throws Exception {
        serve(new ServerLimits(16, 2, Duration.ZERO));
        try (Socket a = new Socket("127.0.0.1", server.port()); Socket b = new Socket("127.0.0.1", server.port());
             Socket c = new Socket("127.0.0.1", server.port())) {
            c.setSoTimeout(20_000);
            assertEquals(-1, c.getInputStream().read(), "the third connection is closed by the server");
            a.setSoTimeout(200);
            b.setSoTimeout(200);
            assertTrue(stillOpen(a) && stillOpen(b), "the first two stay open");
        }
        // Once those are closed, a client gets in again.
        for (int i = 0; i < 2; i++) {
            try (RpcClient client = connectWhenAdmitted()) {
                CompletableFuture<RegisterReply> r = client.call(Opcode.LOOKUP, new LookupRequest("/x", false),
                        RegisterReply::decode);
                answerNext(3);
                assertEquals(3, r.join().serverId());
            }
        }
    }

    /** Connects, retrying while the server still counts connections that are closing. */
    private RpcClient connectWhenAdmitted() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            RpcClient c = connect();
            Thread.sleep(50);
            if (c.isOpen() || System.nanoTime() > deadline) {
                return c;
            }
            c.close();
        }
    }

    private static boolean stillOpen(Socket s) throws IOException {
        try {
            return s.getInputStream().read() != -1;
        } catch (java.net.SocketTimeoutException e) {
            return true; // nothing to read and not closed
        }
    }

    @Test
    void aConnectionThatCarriesNothingIsClosedAfterTheIdleTimeout() throws Exception {
        serve(new ServerLimits(16, 100, Duration.ofMillis(300)));
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            assertEquals(-1, s.getInputStream().read(), "closed by the server");
        }
    }

    @Test
    void aConnectionWithARequestBeingHandledIsNotIdle() throws Exception {
        serve(new ServerLimits(16, 100, Duration.ofMillis(200)));
        try (RpcClient c = connect()) {
            CompletableFuture<RegisterReply> r = c.call(Opcode.LOOKUP, new LookupRequest("/long", false),
                    RegisterReply::decode);
            RpcCall call = held.poll(20, TimeUnit.SECONDS);
            assertNotNull(call);
            Thread.sleep(1000); // several idle periods pass while the request is being handled
            call.reply(new RegisterReply(9, 0));
            assertEquals(9, r.join().serverId());
        }
    }

    @Test
    void theLimitsComeFromTheirKeys() {
        ServerLimits l = ServerLimits.of(CreelConf.of(Map.of(ConfKeys.NET_MAX_IN_FLIGHT.name(), "8",
                ConfKeys.NET_MAX_CONNECTIONS_PER_PEER.name(), "3", ConfKeys.NET_IDLE_TIMEOUT.name(), "5s")));
        assertEquals(new ServerLimits(8, 3, Duration.ofSeconds(5)), l);
        assertEquals(new ServerLimits(1024, 1024, Duration.ofMinutes(10)), ServerLimits.defaults());
        assertTrue(InetAddress.getLoopbackAddress().isLoopbackAddress());
    }
}
