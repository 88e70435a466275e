package io.creel.storage.nvmf.tier;

import static io.creel.storage.nvmf.tier.NvmfServerFixture.BLOCK;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.await;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.pattern;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.read;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.storage.nvmf.format.NvmfAttributes;
import io.creel.storage.nvmf.format.TagSector;
import io.creel.storage.nvmf.format.VolumeHeader;
import io.creel.storage.nvmf.format.VolumeLayout;
import io.creel.storage.nvmf.protocol.BlockClaimRequest;
import io.creel.storage.nvmf.protocol.NvmfOpcodes;
import io.creel.storage.nvmf.tcp.FakeTarget;
import io.creel.storage.server.StorageServer;
import io.creel.storage.spi.BlockTransport;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The nvmf tier's server side on a fake NVMe/TCP target: what it lays out on the namespace and tells
 * clients, blocks served through the server, claims, a target that goes away and comes back (or
 * comes back without the volume), and the settings it refuses.
 */
class NvmfTierTest {

    @Test
    void theServerLaysAVolumeOutOnTheNamespaceAndTellsClientsHowToReachIt() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            StorageServerInfo info = f.info();
            assertEquals("nvmf", info.tier());
            assertEquals("nvmf", info.storageClass());
            NvmfAttributes a = NvmfAttributes.of(info);
            assertEquals("127.0.0.1", a.address());
            assertEquals(f.target.port(), a.tcpPort());
            assertEquals(0, a.rdmaPort(), "the target offers no RDMA port unless configured");
            assertEquals(FakeTarget.NQN, a.nqn());
            assertEquals(1, a.nsid());
            VolumeLayout expected = VolumeLayout.plan(512, (64L << 20) / 512, BLOCK);
            assertEquals(expected, a.layout());
            assertEquals(expected.blockCount(), info.blockCount());
            Optional<VolumeHeader> header = VolumeHeader.decode(ByteBuffer.wrap(f.target.contents(0, 512)));
            assertTrue(header.isPresent(), "the header is on the namespace");
            assertEquals(info.localToken(), header.get().token(), "it names the server's token");
            assertEquals(expected, header.get().layout());
            assertTrue(f.server.summary().contains(info.blockCount() + " blocks of 1.0 MiB"), f.server.summary());
            assertNull(f.server.unavailable());
        }
    }

    @Test
    void blocksWrittenThroughTheServerLandOnTheTargetBehindTheirTagSector() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport tcp = f.throughServer();
            byte[] data = pattern(100_000, 1);
            write(tcp, f.at(5, 11), 333, data);
            assertArrayEquals(data, f.onTarget(5, 333, data.length), "the bytes are on the namespace");
            TagSector.Reading tag = TagSector.decode(ByteBuffer.wrap(f.target.contents(
                    f.layout().tagSectorOf(5) * 512, 512)), f.info().localToken(), 5);
            assertEquals(11, tag.tag(), "and the block's tag sector holds the allocation's tag");
            assertArrayEquals(data, read(tcp, f.at(5, 11), 333, data.length));
        }
    }

    @Test
    void aReadThroughTheServerFailsWhenTheTagSectorWasTakenOverBySomeoneElse() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport tcp = f.throughServer();
            write(tcp, f.at(2, 7), 0, pattern(4096, 2));
            // A second server writing the same namespace puts its own tag there.
            long sector = f.layout().tagSectorOf(2);
            f.target.fill(sector * 512, TagSector.encode(ByteBuffer.allocate(512), 0xbad, 2, 99).array());
            CreelException e = assertThrows(CreelException.class, () -> read(tcp, f.at(2, 7), 0, 4096));
            assertEquals(ErrorCode.STALE_BLOCK, e.code());
            assertTrue(e.getMessage().contains("another Creel volume"), e.getMessage());
        }
    }

    @Test
    void claimsRaiseTheTagAndRefuseOlderAllocations() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            var c = await(f.connections.get(new HostPort("127.0.0.1", f.server.port())));
            assertEquals(Empty.INSTANCE, await(c.call(NvmfOpcodes.BLOCK_CLAIM, new BlockClaimRequest(4, 20),
                    Empty::decode)));
            assertEquals(20, f.server.tags().get(4));
            TagSector.Reading onTarget = TagSector.decode(ByteBuffer.wrap(f.target.contents(
                    f.layout().tagSectorOf(4) * 512, 512)), f.info().localToken(), 4);
            assertEquals(20, onTarget.tag(), "the claim is answered once the target holds the tag");

            CreelException older = assertThrows(CreelException.class, () -> await(c.call(NvmfOpcodes.BLOCK_CLAIM,
                    new BlockClaimRequest(4, 19), Empty::decode)));
            assertEquals(ErrorCode.STALE_BLOCK, older.code());
            CreelException nowhere = assertThrows(CreelException.class, () -> await(c.call(NvmfOpcodes.BLOCK_CLAIM,
                    new BlockClaimRequest(f.info().blockCount(), 30), Empty::decode)));
            assertEquals(ErrorCode.INVALID_ARGUMENT, nowhere.code());
            assertTrue(nowhere.getMessage().contains("does not exist"), nowhere.getMessage());
        }
    }

    @Test
    void aTargetThatGoesAwayMakesTheServerUnavailableUntilItIsBack() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport tcp = f.throughServer();
            byte[] data = pattern(8192, 3);
            write(tcp, f.at(1, 3), 0, data);

            f.target.hook = c -> new FakeTarget.Drop(); // every command, new connections included, is dropped
            f.target.dropAllConnections();
            until("the server notices", () -> f.server.unavailable() != null);
            String why = f.server.unavailable();
            assertTrue(why.contains("lost the NVMe-oF target") && why.contains(FakeTarget.NQN), why);
            CreelException e = assertThrows(CreelException.class, () -> read(tcp, f.at(1, 3), 0, 8192));
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains(FakeTarget.NQN), "names the target: " + e.getMessage());

            f.target.hook = c -> FakeTarget.NORMAL;
            until("the server reconnects", () -> f.server.unavailable() == null);
            assertArrayEquals(data, read(tcp, f.at(1, 3), 0, 8192), "the blocks are there again");
        }
    }

    @Test
    void aTargetThatComesBackWithoutTheVolumeLeavesTheServerDownSayingTheBlocksAreLost() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            f.target.hook = c -> new FakeTarget.Drop();
            f.target.dropAllConnections();
            until("the server notices", () -> f.server.unavailable() != null);
            f.target.fill(0, new byte[512]); // the namespace was wiped meanwhile
            f.target.hook = c -> FakeTarget.NORMAL;
            until("the server looked again", () -> f.server.unavailable().contains("no longer holds"));
            assertTrue(f.server.unavailable().contains("lost"), f.server.unavailable());
        }
    }

    @Test
    void aServerWhoseTargetIsNotThereDoesNotStart() throws Exception {
        FakeTarget gone = new FakeTarget(512, 2048);
        int port = gone.port();
        gone.close();
        CreelException e = assertThrows(CreelException.class, () -> new NvmfServerFixture(
                new FakeTarget(512, 2048), Map.of("creel.storage.nvmf.tcp.port", Integer.toString(port))).close());
        assertTrue(e.code() == ErrorCode.UNAVAILABLE || e.code() == ErrorCode.TIMEOUT, e.toString());
        assertTrue(e.getMessage().contains("connecting to the NVMe-oF target") && e.getMessage().contains(":" + port),
                e.getMessage());
    }

    @Test
    void missingOrContradictorySettingsStopTheStartNamingTheKey() throws Exception {
        expectConfiguration(Map.of("creel.storage.nvmf.address", ""), "creel.storage.nvmf.address");
        expectConfiguration(Map.of("creel.storage.nvmf.nqn", ""), "creel.storage.nvmf.nqn");
        expectConfiguration(Map.of("creel.storage.nvmf.transport", "rdma"), "creel.storage.nvmf.rdma.port");
        expectConfiguration(Map.of("creel.storage.persistent", "true"), "creel.storage.persistent");
        expectConfiguration(Map.of("creel.storage.nvmf.size", "1g"), "creel.storage.nvmf.size");
        expectConfiguration(Map.of("creel.storage.nvmf.size", "1m"), "no block");
    }

    private static void expectConfiguration(Map<String, String> settings, String mentioned) throws Exception {
        FakeTarget target = new FakeTarget(512, (64L << 20) / 512);
        CreelConf conf = NvmfServerFixture.conf(target, settings);
        EventLoops loops = EventLoops.create(conf, "nvmf-conf-test");
        try {
            CreelException e = assertThrows(CreelException.class, () -> StorageServer.open(conf, "nvmf", loops,
                    "127.0.0.1", "h").close());
            assertEquals(ErrorCode.CONFIGURATION, e.code(), e.toString());
            assertTrue(e.getMessage().contains(mentioned), e.getMessage());
        } finally {
            loops.close();
            target.close();
        }
    }

    @Test
    void onlyTheConfiguredPartOfTheNamespaceIsUsed() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of("creel.storage.nvmf.size", "16m"))) {
            assertEquals(VolumeLayout.plan(512, (16L << 20) / 512, BLOCK), f.layout());
            assertNotNull(f.info().attribute(NvmfAttributes.DATA_SECTOR));
        }
    }

    static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("still not true after 20 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
