package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once {@link RpcServer#close} returns, no request reaches the handler — not even one on a
 * connection the server accepted while it was closing. A storage server releases its medium right
 * after closing its RPC server; a request served after that reads unmapped memory and takes the
 * whole JVM down (the model test's chaos mode did, killing in-process storage servers).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RpcServerCloseTest {
    private static final int ROUNDS = 150;
    private static final int CLIENTS = 4;

    @Test
    void noRequestIsHandledAfterCloseReturnsEvenFromAConnectionAcceptedDuringTheClose() throws Exception {
        CreelConf conf = CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2");
        AtomicInteger servedAfterClose = new AtomicInteger();
        AtomicInteger servedBeforeClose = new AtomicInteger();
        java.util.Queue<String> stuck = new java.util.concurrent.ConcurrentLinkedQueue<>();
        try (EventLoops serverLoops = EventLoops.create(conf, "closing-server");
             EventLoops clientLoops = EventLoops.create(conf, "closing-client")) {
            for (int round = 0; round < ROUNDS; round++) {
                AtomicBoolean closed = new AtomicBoolean();
                RpcServer server = RpcServer.start("closing", "127.0.0.1", 0, serverLoops, 1 << 20, call -> {
                    (closed.get() ? servedAfterClose : servedBeforeClose).incrementAndGet();
                    LookupRequest.decode(call.body());
                    call.reply(new RegisterReply(1, 0));
                });
                HostPort at = new HostPort("127.0.0.1", server.port());
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    Thread t = new Thread(() -> connectAndAskUntil(stop, at, clientLoops, stuck), "closing-client-" + c);
                    t.start();
                    clients.add(t);
                }
                Thread.sleep(1 + round % 4); // new connections keep arriving while it closes
                server.close();
                closed.set(true);
                Thread.sleep(5); // what a late connection would be served happens now
                stop.set(true);
                for (Thread t : clients) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                    assertTrue(!t.isAlive(), t.getName() + " did not stop within 30 s");
                }
            }
        }
        assertTrue(stuck.isEmpty(), "calls that outlived their timeouts: " + stuck);
        assertTrue(servedBeforeClose.get() > 0, "the clients reached the servers before they closed");
        assertEquals(0, servedAfterClose.get(), "requests handled after RpcServer.close returned");
    }

    /** Connects, asks once, closes, again and again: new connections are what can slip past a close. */
    private static void connectAndAskUntil(AtomicBoolean stop, HostPort at, EventLoops loops,
                                           java.util.Queue<String> stuck) {
        while (!stop.get()) {
            try {
                RpcClient c = RpcClient.connect(at, loops, 1 << 20, Duration.ofSeconds(2), Duration.ofSeconds(2))
                        .get(5, TimeUnit.SECONDS);
                try {
                    c.call(Opcode.LOOKUP, new LookupRequest("/x", false), RegisterReply::decode).get(5, TimeUnit.SECONDS);
                } finally {
                    c.close();
                }
            } catch (ExecutionException | CreelException e) {
                // Refused or cut off by the closing server: expected once it closes; try again.
                Thread.onSpinWait();
            } catch (TimeoutException e) {
                stuck.add("a connect or call to " + at + " outlived its own timeout");
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
