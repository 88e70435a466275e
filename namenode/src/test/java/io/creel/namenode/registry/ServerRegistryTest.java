package io.creel.namenode.registry;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerRegistryTest {
    private final ManualClock clock = new ManualClock();
    private final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), 4096, 10_000, clock);

    @Test
    void registrationAssignsDistinctIds() {
        int a = registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 1)).serverId();
        int b = registry.register(server("disk", "disk", "h1", 1001, 10, 4096, 2)).serverId();
        assertTrue(a > 0 && b > 0);
        assertNotEquals(a, b);
    }

    @Test
    void sameAddressAndTokenGetsItsOldIdBack() {
        StorageServerInfo s = server("dram", "dram", "h1", 1000, 10, 4096, 7);
        int first = registry.register(s).serverId();
        assertEquals(first, registry.register(s).serverId());
        assertEquals(1, registry.servers().size());
    }

    @Test
    void sameAddressWithNewTokenIsARestartedServerWithANewIdAndTheOldOneIsDead() {
        int old = registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 7)).serverId();
        int fresh = registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 8)).serverId();
        assertNotEquals(old, fresh);
        assertEquals(ServerRegistry.Beat.UNKNOWN, registry.heartbeat(old, 7), "the replaced server must register again");
        assertEquals(List.of(fresh), registry.liveServers("dram").stream().map(StorageServerInfo::serverId).toList());
        assertEquals("dead", registry.servers().get(0).state());
    }

    @Test
    void heartbeatWithUnknownIdOrWrongTokenIsNotKnown() {
        int id = registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 7)).serverId();
        assertEquals(ServerRegistry.Beat.KNOWN, registry.heartbeat(id, 7));
        assertEquals(ServerRegistry.Beat.UNKNOWN, registry.heartbeat(id, 8));
        assertEquals(ServerRegistry.Beat.UNKNOWN, registry.heartbeat(id + 100, 7));
    }

    @Test
    void silentServerIsDeadAndNotOfferedUntilItHeartbeatsAgain() {
        int id = registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 7)).serverId();
        clock.advance(10_001);
        assertTrue(registry.liveServers("dram").isEmpty());
        ServerRegistry.ServerView v = registry.servers().get(0);
        assertEquals("dead", v.state());
        assertEquals(10_001, v.heartbeatAgeMillis());
        assertEquals(ServerRegistry.Beat.KNOWN, registry.heartbeat(id, 7));
        assertEquals(1, registry.liveServers("dram").size());
    }

    @Test
    void serversThatDisagreeWithTheClusterAreRefusedWithTheReason() {
        Expect.error(ErrorCode.CONFIGURATION, () -> registry.register(server("dram", "dram", "h", 1, 10, 8192, 1)),
                "block size", "creel.block.size");
        Expect.error(ErrorCode.CONFIGURATION, () -> registry.register(server("dram", "nvme", "h", 1, 10, 4096, 1)),
                "nvme", "creel.storage.classes");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> registry.register(server("dram", "dram", "h", 1, 0, 4096, 1)),
                "no blocks");
    }

    @Test
    void aServerKnownOnlyFromTheLogMustRegisterBeforeItsHeartbeatsCount() {
        StorageServerInfo restored = registry.restore(server("dram", "dram", "h1", 1000, 10, 4096, 7));
        assertEquals(ServerRegistry.Beat.UNKNOWN, registry.heartbeat(restored.serverId(), 7),
                "a restarted namenode must see the server register, to claim its regions back");
        assertTrue(registry.liveServers("dram").isEmpty());
        assertEquals(restored.serverId(), registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 7)).serverId(),
                "same address and token: the same id, so restored block locations stay valid");
        assertEquals(ServerRegistry.Beat.KNOWN, registry.heartbeat(restored.serverId(), 7));
    }

    @Test
    void aServerKnownOnlyFromTheLogIsWaitedForOnlyWhileALiveOneWouldHaveRegistered() {
        registry.restore(server("dram", "dram", "h1", 1000, 10, 4096, 7));
        assertEquals(1, registry.notBackSinceRestart("dram"), "right after the restart its space may come back");
        clock.advance(10_000);
        assertEquals(1, registry.notBackSinceRestart("dram"));
        clock.advance(1);
        assertEquals(0, registry.notBackSinceRestart("dram"),
                "silent for the server timeout since the restart: dead, so its class can be out of space");
    }

    @Test
    void aServerIsDeclaredDeadAfterTheTimeoutAndOneKnownFromTheLogOnlyOnceItHadTheTimeToComeBack() {
        StorageServerInfo live = registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 1));
        StorageServerInfo restored = registry.restore(server("disk", "disk", "h2", 1001, 10, 4096, 2));
        assertTrue(registry.declaredDead().isEmpty(), "a fresh registration, and a restart that is still young");
        clock.advance(10_001);
        assertEquals(java.util.Set.of(live.serverId(), restored.serverId()), registry.declaredDead());
        registry.register(server("dram", "dram", "h1", 1000, 10, 4096, 1));
        assertEquals(java.util.Set.of(restored.serverId()), registry.declaredDead(), "heard again: alive");
    }
}
