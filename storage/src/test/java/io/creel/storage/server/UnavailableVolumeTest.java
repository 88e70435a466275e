package io.creel.storage.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostIdentity;
import io.creel.common.protocol.HeartbeatReply;
import io.creel.common.protocol.HeartbeatRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RegisterRequest;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcServer;
import io.creel.storage.runtime.StorageServerRuntime;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A storage server whose volume cannot serve (its medium is out of reach) tells the namenodes by
 * silence: it sends no heartbeats, so they take it out of allocation, and beats again once the
 * volume serves again.
 */
class UnavailableVolumeTest {
    private static final long BEAT_MILLIS = 20;

    private EventLoops loops;
    private RpcServer namenode;
    private final AtomicInteger registrations = new AtomicInteger();
    private final AtomicInteger heartbeats = new AtomicInteger();

    @BeforeEach
    void startFakeNamenode() {
        loops = EventLoops.create(CreelConf.of(Map.of("creel.net.event.loops", "2")), "unavailable-volume-test");
        namenode = RpcServer.start("fake namenode", "127.0.0.1", 0, loops, 1 << 20, call -> {
            switch ((Opcode) call.opcode()) { // a fake namenode: only core opcodes come
                case REGISTER -> {
                    RegisterRequest.decode(call.body());
                    registrations.incrementAndGet();
                    call.reply(new RegisterReply(7, 99));
                }
                case HEARTBEAT -> {
                    HeartbeatRequest r = HeartbeatRequest.decode(call.body());
                    assertEquals(7, r.serverId());
                    heartbeats.incrementAndGet();
                    call.reply(new HeartbeatReply(true, false));
                }
                default -> throw new AssertionError("unexpected " + call.opcode());
            }
        });
    }

    @AfterEach
    void stop() {
        namenode.close();
        loops.close();
    }

    private StorageServerRuntime startServer() {
        CreelConf conf = CreelConf.of(Map.of(
                "creel.namenode.address", "creel://127.0.0.1:" + namenode.port(),
                "creel.storage.classes", "fake",
                "creel.storage.bind.host", "127.0.0.1",
                "creel.storage.advertise.host", "127.0.0.1",
                "creel.storage.heartbeat.interval", BEAT_MILLIS + "ms",
                "creel.net.event.loops", "2"));
        return StorageServerRuntime.start(conf, "fake", loops);
    }

    @Test
    void noHeartbeatsWhileTheVolumeCannotServeAndTheyResumeWhenItCan() throws InterruptedException {
        ServerPlan plan = ServerPlan.forHost(HostIdentity.machineId());
        try (StorageServerRuntime server = startServer()) {
            server.awaitRegistered(10_000);
            until("heartbeats flow", () -> heartbeats.get() >= 2);

            plan.unavailable = "target lost";
            // A tick that read the volume as serving just before may still send one beat.
            Thread.sleep(3 * BEAT_MILLIS);
            int before = heartbeats.get();
            Thread.sleep(25 * BEAT_MILLIS);
            assertEquals(before, heartbeats.get(), "no heartbeat in 25 intervals while the volume cannot serve");

            plan.unavailable = null;
            until("heartbeats resume", () -> heartbeats.get() > before + 1);
            assertEquals(1, registrations.get(), "the server kept its registration: it only fell silent");
        }
    }

    @Test
    void aServerWhoseVolumeCannotServeFromTheStartDoesNotRegisterUntilItCan() throws InterruptedException {
        ServerPlan plan = ServerPlan.forHost(HostIdentity.machineId());
        plan.unavailable = "target not reached yet";
        try (StorageServerRuntime server = startServer()) {
            Thread.sleep(25 * BEAT_MILLIS);
            assertEquals(0, registrations.get(), "no registration while the volume cannot serve");
            assertTrue(!server.isRegistered());

            plan.unavailable = null;
            server.awaitRegistered(10_000);
            until("heartbeats flow", () -> heartbeats.get() >= 1);
        }
    }

    private static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("still not true after 15 s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
