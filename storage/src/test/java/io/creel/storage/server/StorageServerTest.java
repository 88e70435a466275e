package io.creel.storage.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.protocol.TierOpcode;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The storage-server runtime with a fake tier and fake exporters: how it starts (port, volume,
 * exporters, then serving), what it answers, what it says when it cannot start, and the order in
 * which it stops.
 */
class StorageServerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final CreelConf CONF = CreelConf.of(Map.of(
            "creel.storage.bind.host", "127.0.0.1",
            "creel.storage.classes", "fake,disk",
            "creel.net.event.loops", "2"));
    private static EventLoops loops;

    @BeforeAll
    static void startLoops() {
        loops = EventLoops.create(CONF, "storage-server-test");
    }

    @AfterAll
    static void stopLoops() {
        loops.close();
    }

    private static StorageServer open(ServerPlan plan) {
        return open(plan, CONF);
    }

    private static StorageServer open(ServerPlan plan, CreelConf conf) {
        return StorageServer.open(conf, "fake", loops, "localhost", plan.hostId);
    }

    private static CreelException openFailure(ServerPlan plan) {
        return assertThrows(CreelException.class, () -> open(plan).close());
    }

    private static RpcClient connect(int port) {
        return await(RpcClient.connect(new HostPort("127.0.0.1", port), loops, CONF.maxFrameSize(), WAIT, WAIT));
    }

    private static CompletableFuture<Empty> blockRead(RpcClient c) {
        return c.call(Opcode.BLOCK_READ, new BlockReadRequest(0, 0, 0, 1), Empty::decode);
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer within " + WAIT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static CreelException failure(CompletableFuture<?> f) {
        return assertThrows(CreelException.class, () -> await(f));
    }

    /** Nothing listens on {@code port} any more: another socket can bind it. */
    private static void assertPortReleased(int port) {
        assertTrue(port > 0, "the tier bound a port");
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress("127.0.0.1", port));
        } catch (IOException e) {
            throw new AssertionError("port " + port + " is still taken after the failed start", e);
        }
    }

    @Test
    void requestsBeforeServeAreAnsweredUnavailableAndReachTheirHandlerAfter() {
        ServerPlan plan = ServerPlan.create();
        try (StorageServer server = open(plan); RpcClient c = connect(server.port())) {
            CreelException early = failure(blockRead(c));
            assertEquals(ErrorCode.UNAVAILABLE, early.code());
            assertTrue(early.getMessage().contains("starting"), early.getMessage());
            assertTrue(plan.events().stream().noneMatch(e -> e.contains("served")),
                    "no request reached the exporter before serve(): " + plan.events());

            server.serve();
            assertEquals(Empty.INSTANCE, await(blockRead(c)));
            assertTrue(plan.events().contains("alpha served BLOCK_READ"), plan.events().toString());
        }
    }

    @Test
    void anOpcodeNobodyRoutedIsInvalidArgumentNamingItAndTheConnectionCarriesOn() {
        ServerPlan plan = ServerPlan.create();
        try (StorageServer server = open(plan); RpcClient c = connect(server.port())) {
            server.serve();
            CreelException e = failure(c.call(Opcode.STATUS, Empty.INSTANCE, Empty::decode));
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("STATUS"), "names the opcode: " + e.getMessage());
            assertTrue(e.getMessage().contains("BLOCK_READ"), "says what it serves: " + e.getMessage());
            assertEquals(Empty.INSTANCE, await(blockRead(c)), "the same connection still serves");
        }
    }

    @Test
    void theDescriptionCarriesTheVolumeAndEveryExportAttributes() {
        ServerPlan plan = ServerPlan.create();
        plan.exports.put("beta", new ServerPlan.ExportPlan(Map.of("beta.key", "b"), List.of(Opcode.BLOCK_WRITE), null));
        try (StorageServer server = open(plan)) {
            StorageServerInfo info = server.describe();
            assertEquals(Map.of("fake.volume.path", "/dev/shm/fake", "alpha.port", "7001", "beta.key", "b"),
                    info.attributes());
            assertEquals("fake", info.tier());
            assertEquals("fake", info.storageClass(), "the class defaults to the tier's name");
            assertEquals("localhost", info.host());
            assertEquals(server.port(), info.port());
            assertEquals(plan.hostId, info.hostId());
            assertEquals(FakeVolume.BLOCK_COUNT, info.blockCount());
            assertEquals(FakeVolume.BLOCK_SIZE, info.blockSize());
            assertEquals(FakeVolume.TOKEN, info.localToken());
            assertEquals(0, info.serverId(), "namenodes assign ids");
            assertTrue(plan.events().contains("export alpha started on fake storage localhost:" + server.port()),
                    "the exporter learns the server's name: " + plan.events());
        }
    }

    @Test
    void anExporterThatDeclinesAddsNothingAndIsNotClosed() {
        ServerPlan plan = ServerPlan.create(); // beta has no plan: it declines
        try (StorageServer server = open(plan)) {
            assertEquals(Map.of("fake.volume.path", "/dev/shm/fake", "alpha.port", "7001"),
                    server.describe().attributes());
        }
        assertTrue(plan.events().contains("export beta declined"), plan.events().toString());
        assertTrue(plan.events().stream().noneMatch(e -> e.startsWith("export beta closed")), plan.events().toString());
    }

    @Test
    void aTierThatNeverBindsAPortIsAConfigurationErrorAndItsVolumeIsClosed() {
        ServerPlan plan = ServerPlan.create();
        plan.listenCalls = 0;
        CreelException e = openFailure(plan);
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("fake") && e.getMessage().contains("port"), e.getMessage());
        assertEquals(List.of("tier opened", "volume closed, port never bound"), plan.events(),
                "no exporter was asked to serve a server without a port");
    }

    @Test
    void aTierThatBindsTwiceFailsAndReleasesTheFirstPort() {
        ServerPlan plan = ServerPlan.create();
        plan.listenCalls = 2;
        RuntimeException e = assertThrows(RuntimeException.class, () -> open(plan).close());
        assertTrue(e.getMessage().contains("fake") && e.getMessage().contains("twice"), e.getMessage());
        assertPortReleased(plan.boundPort());
    }

    @Test
    void aTierThatFailsAfterBindingReleasesThePortAndKeepsItsError() {
        ServerPlan plan = ServerPlan.create();
        plan.tierFailure = new CreelException(ErrorCode.CONFIGURATION, "fake tier: no room in /dev/shm/fake");
        CreelException e = openFailure(plan);
        assertEquals("fake tier: no room in /dev/shm/fake", e.getMessage());
        assertPortReleased(plan.boundPort());
    }

    @Test
    void aPortTakenByAnotherProcessIsUnavailableNamingThePort() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            ServerPlan plan = ServerPlan.create();
            plan.port = taken.getLocalPort();
            CreelException e = openFailure(plan);
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains(String.valueOf(taken.getLocalPort())), e.getMessage());
            assertEquals(List.of("tier opened"), plan.events(), "no volume, no exporter");
        }
    }

    @Test
    void aSecondRouteForTheSameOpcodeIsAnErrorNamingItAndLeavesNothingOpen() {
        ServerPlan plan = ServerPlan.create();
        plan.exports.put("beta", new ServerPlan.ExportPlan(Map.of(), List.of(Opcode.BLOCK_READ), null));
        RuntimeException e = assertThrows(RuntimeException.class, () -> open(plan).close());
        assertTrue(e.getMessage().contains("BLOCK_READ"), "names the opcode: " + e.getMessage());
        List<String> events = plan.events();
        assertTrue(events.contains("export alpha closed, port closed"), "the export started first is stopped: " + events);
        assertEquals("volume closed, port closed", events.get(events.size() - 1), events.toString());
        assertPortReleased(plan.boundPort());
    }

    @Test
    void noExporterServingTheVolumeIsAConfigurationErrorAndLeavesNothingOpen() {
        ServerPlan plan = ServerPlan.create();
        plan.exports.clear();
        CreelException e = openFailure(plan);
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("no block exporter"), e.getMessage());
        assertTrue(e.getMessage().contains("fake storage localhost:" + plan.boundPort()), "names the server: "
                + e.getMessage());
        assertEquals("volume closed, port closed", plan.events().get(plan.events().size() - 1), plan.events().toString());
        assertPortReleased(plan.boundPort());
    }

    @Test
    void anExporterThatFailsToStartStopsTheExportsStartedBeforeIt() {
        ServerPlan plan = ServerPlan.create();
        plan.exports.put("beta", new ServerPlan.ExportPlan(Map.of(), List.of(),
                new CreelException(ErrorCode.UNAVAILABLE, "beta: no device")));
        CreelException e = openFailure(plan);
        assertEquals("beta: no device", e.getMessage());
        List<String> events = plan.events();
        assertTrue(events.indexOf("export alpha closed, port closed") >= 0
                && events.indexOf("export alpha closed, port closed") < events.indexOf("volume closed, port closed"),
                events.toString());
        assertPortReleased(plan.boundPort());
    }

    @Test
    void closeStopsThePortThenTheExportsThenTheVolumeAndOnlyOnce() {
        ServerPlan plan = ServerPlan.create();
        plan.exports.put("beta", new ServerPlan.ExportPlan(Map.of(), List.of(Opcode.BLOCK_WRITE), null));
        StorageServer server = open(plan);
        server.serve();
        int port = server.port();
        server.close();
        server.close();
        List<String> events = plan.events();
        assertEquals(List.of("export alpha closed, port closed", "export beta closed, port closed",
                "volume closed, port closed"), events.subList(events.size() - 3, events.size()),
                "the port stops before anything it serves: " + events);
        assertEquals(1, events.stream().filter(x -> x.startsWith("volume closed")).count(), events.toString());
        assertPortReleased(port);
    }

    @Test
    void aStorageClassOutsideCreelStorageClassesIsAConfigurationErrorNamingTheKey() {
        ServerPlan plan = ServerPlan.create();
        CreelException e = assertThrows(CreelException.class,
                () -> open(plan, CONF.with(Map.of("creel.storage.class", "gold"))).close());
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("'gold'") && e.getMessage().contains("creel.storage.classes"),
                e.getMessage());
        assertEquals(List.of(), plan.events(), "the tier is not even opened");

        CreelException byTierName = assertThrows(CreelException.class,
                () -> open(plan, CONF.with(Map.of("creel.storage.classes", "dram,disk"))).close());
        assertTrue(byTierName.getMessage().contains("'fake'") && byTierName.getMessage().contains("creel.storage.classes"),
                "the default class is the tier's name: " + byTierName.getMessage());
    }

    @Test
    void aTierIsFoundByNameAndAnUnknownOneIsAConfigurationErrorListingTheTiers() {
        assertEquals("fake", StorageServer.findTier("fake").name());
        assertEquals(List.of("fake"), StorageServer.availableTiers());
        CreelException e = assertThrows(CreelException.class, () -> StorageServer.findTier("tape"));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("'tape'") && e.getMessage().contains("available: fake"), e.getMessage());
    }

    @Test
    void aTierOpcodeWithoutItsServiceEntryIsNotRouted() {
        ServerPlan plan = ServerPlan.create();
        try (StorageServer server = open(plan)) {
            TierOpcode unregistered = new TierOpcode(29, "TEST_UNREGISTERED", "test tier");
            CreelException e = assertThrows(CreelException.class,
                    () -> server.route(unregistered, call -> call.reply(Empty.INSTANCE)));
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("TEST_UNREGISTERED (code 29) is routed but not registered"),
                    e.getMessage());
        }
    }

    @Test
    void theRuntimeRoutesItsOwnRequestsBeforeServingAndRoutesAreFixedAfter() {
        ServerPlan plan = ServerPlan.create();
        try (StorageServer server = open(plan); RpcClient c = connect(server.port())) {
            server.route(Opcode.REGION_GRANT, call -> call.reply(Empty.INSTANCE));
            RuntimeException taken = assertThrows(RuntimeException.class,
                    () -> server.route(Opcode.BLOCK_READ, call -> call.reply(Empty.INSTANCE)));
            assertTrue(taken.getMessage().contains("BLOCK_READ"), taken.getMessage());

            server.serve();
            assertEquals(Empty.INSTANCE, await(c.call(Opcode.REGION_GRANT, Empty.INSTANCE, Empty::decode)));
            RuntimeException late = assertThrows(RuntimeException.class,
                    () -> server.route(Opcode.REGION_RELEASE, call -> call.reply(Empty.INSTANCE)));
            assertTrue(late.getMessage().contains("fixed"), late.getMessage());
            assertEquals(ErrorCode.INVALID_ARGUMENT,
                    failure(c.call(Opcode.REGION_RELEASE, Empty.INSTANCE, Empty::decode)).code(),
                    "a route refused after serve() is not served");
        }
    }

    @Test
    void theServerHandsOutItsVolumesTagsAndSummary() {
        ServerPlan plan = ServerPlan.create();
        try (StorageServer server = open(plan)) {
            assertEquals("fake", server.tier());
            assertSame(plan.volume.tags(), server.tags(), "the runtime hands out the volume's own tag table");
            assertEquals("fake volume of 16 blocks in a heap buffer", server.summary());
        }
    }
}
