package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import io.creel.common.protocol.RequestType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** What an RPC server tells the probe of its kind: every answer with its error, and its connections. */
class RpcProbesTest {
    /** Records what it hears. */
    static final class Recorder implements RpcProbe {
        final List<String> answers = new CopyOnWriteArrayList<>();
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public void answered(RequestType op, CreelException error, long nanos) {
            assertTrue(nanos >= 0, "a reply does not come before its request: " + nanos);
            answers.add(op + " " + (error == null ? "ok" : error.code()));
        }

        @Override
        public void connectionOpened() {
            open.incrementAndGet();
        }

        @Override
        public void connectionClosed() {
            closed.incrementAndGet();
        }
    }

    @Test
    void withNothingInstalledEveryServerGetsNone() {
        assertSame(RpcProbe.NONE, RpcProbes.forServer("nobody measures this"));
    }

    @Test
    void aServerReportsAnswersErrorsAndConnectionsToTheProbeOfItsName() throws Exception {
        Recorder recorder = new Recorder();
        Function<String, RpcProbe> probes = name -> name.equals("probed") ? recorder : RpcProbe.NONE;
        RpcProbes.install(probes);
        EventLoops loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "1"), "probe-test");
        try {
            assertSame(recorder, RpcProbes.forServer("probed"));
            RpcServer server = RpcServer.start("probed", "127.0.0.1", 0, loops, 1 << 20, call -> {
                LookupRequest r = LookupRequest.decode(call.body());
                if (r.path().equals("/fail")) {
                    throw new CreelException(ErrorCode.NOT_FOUND, "/fail: no such node");
                }
                call.reply(new RegisterReply(1, 0));
            });
            try (RpcClient c = RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops, 1 << 20,
                    Duration.ofSeconds(5), Duration.ofSeconds(10)).join()) {
                c.call(Opcode.LOOKUP, new LookupRequest("/ok", false), RegisterReply::decode).join();
                assertThrows(CompletionException.class,
                        () -> c.call(Opcode.LOOKUP, new LookupRequest("/fail", false), RegisterReply::decode).join());
            } finally {
                server.close();
            }
            assertEquals(List.of("LOOKUP ok", "LOOKUP NOT_FOUND"), recorder.answers);
            assertEquals(1, recorder.open.get());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (recorder.closed.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, recorder.closed.get(), "the closed connection was reported");
        } finally {
            RpcProbes.uninstall(probes);
            loops.close();
        }
        assertSame(RpcProbe.NONE, RpcProbes.forServer("probed"), "uninstalled: back to NONE");
    }

    @Test
    void uninstallingSomethingElseLeavesTheInstalledProbesInPlace() {
        Recorder recorder = new Recorder();
        Function<String, RpcProbe> mine = name -> recorder;
        RpcProbes.install(mine);
        try {
            RpcProbes.uninstall(name -> RpcProbe.NONE);
            assertSame(recorder, RpcProbes.forServer("x"));
        } finally {
            RpcProbes.uninstall(mine);
        }
    }
}
