package io.creel.storage.rdma.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.export.RdmaBlockExporter;
import io.creel.storage.rdma.fake.FakeRdmaDevice;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import io.creel.storage.rdma.tier.TierFixture;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rdma transport against a real DRAM volume exported over the fake network: bytes go both ways
 * and land in the server's medium, tags are checked and claimed as the server checks and claims
 * them, buffers and connections are shared, and every failure of the path is a transport failure,
 * never an error about the data.
 */
class RdmaTransportTest {
    private static final long WAIT = 30;

    @TempDir
    Path dir;
    private TierFixture fx;
    private final List<BlockTransport> opened = new ArrayList<>();

    private TierFixture fixture(Map<String, String> clientSettings) {
        fx = new TierFixture(dir, clientSettings);
        assertNotNull(fx.export(new RdmaBlockExporter(fx.serverFabric)), "the exporter serves the dram volume");
        return fx;
    }

    private BlockTransport transport() {
        BlockTransport t = new RdmaTransportProvider(fx.clientFabric).open(fx.info(),
                new TransportContext(fx.clientConf, null));
        assertNotNull(t, "the provider reaches a server that exports over RDMA");
        opened.add(t);
        return t;
    }

    @AfterEach
    void close() {
        opened.forEach(BlockTransport::close);
        if (fx != null) {
            fx.close();
        }
    }

    private static void await(CompletableFuture<?> f) throws Exception {
        f.get(WAIT, TimeUnit.SECONDS);
    }

    private static CreelException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CreelException, "not a CreelException: " + e.getCause());
        return (CreelException) e.getCause();
    }

    private static byte[] read(BlockTransport t, BlockLocation at, int offset, int length) throws Exception {
        ByteBuffer dst = ByteBuffer.allocate(length);
        await(t.read(at, offset, dst));
        assertEquals(length, dst.position(), "the read advanced the buffer by its length");
        return dst.array();
    }

    @Test
    void writesLandInTheServersMediumAndReadsBringThemBackAtEveryOffsetAndSize() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        assertEquals("rdma", t.name());
        assertTrue(t.supportsWrite());
        int[][] cases = {{0, 1}, {7, 100}, {0, TierFixture.BLOCK}, {TierFixture.BLOCK - 3, 3}, {4093, 8200}};
        for (int i = 0; i < cases.length; i++) {
            int off = cases[i][0];
            int len = cases[i][1];
            byte[] data = TierFixture.bytes(len, i);
            ByteBuffer src = ByteBuffer.wrap(data);
            await(t.write(fx.at(i, 10 + i), off, src));
            assertEquals(len, src.position(), "the write consumed its buffer");
            assertArrayEquals(data, fx.onServer(i, off, len), "case " + i + " landed in the medium");
            assertEquals(10 + i, fx.volume.tags().get(i), "the write claimed the block for its tag");
            assertArrayEquals(data, read(t, fx.at(i, 10 + i), off, len), "case " + i + " reads back");
        }
    }

    @Test
    void readsSeeWhatTheServerWroteOverTcpAndWritesOverRdmaAreWhatTheServerReads() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        byte[] data = TierFixture.bytes(5000, 9);
        fx.serverWrites(15, 3, 100, data);
        assertArrayEquals(data, read(t, fx.at(15, 3), 100, 5000), "the last block, at the end of the segment");
    }

    @Test
    void aBlockNotYetWrittenUnderTheLocationsTagIsStaleNotAnotherAllocationsBytes() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        CreelException never = failure(t.read(fx.at(2, 5), 0, ByteBuffer.allocate(10)));
        assertEquals(ErrorCode.STALE_BLOCK, never.code());
        assertTrue(never.getMessage().contains("has not been written under this allocation yet"), never.getMessage());
        assertTrue(never.getMessage().contains("localhost:7000"), "names the server: " + never.getMessage());

        fx.serverWrites(2, 4, 0, TierFixture.bytes(10, 1)); // an older allocation's bytes
        CreelException older = failure(t.read(fx.at(2, 5), 0, ByteBuffer.allocate(10)));
        assertEquals(ErrorCode.STALE_BLOCK, older.code());
        assertTrue(older.getMessage().contains("still holds the older tag 4"), older.getMessage());
    }

    @Test
    void aLocationThatOutlivedItsAllocationIsStaleOnceTheBlockIsReused() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        await(t.write(fx.at(6, 20), 0, ByteBuffer.wrap(TierFixture.bytes(64, 2))));
        fx.serverWrites(6, 21, 0, TierFixture.bytes(64, 3)); // freed and handed to a newer allocation
        CreelException e = failure(t.read(fx.at(6, 20), 0, ByteBuffer.allocate(64)));
        assertEquals(ErrorCode.STALE_BLOCK, e.code());
        assertTrue(e.getMessage().contains("was freed and reused (tag 20, now 21)"), e.getMessage());
        assertTrue(t.supportsWrite());
        assertTrue(read(t, fx.at(6, 21), 0, 64).length == 64, "the new allocation reads fine");
    }

    @Test
    void aWriterWithAnOlderTagThanTheBlocksIsRefusedAndWritesNothing() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        byte[] theirs = TierFixture.bytes(128, 4);
        fx.serverWrites(8, 30, 0, theirs);
        CreelException e = failure(t.write(fx.at(8, 29), 0, ByteBuffer.wrap(TierFixture.bytes(128, 5))));
        assertEquals(ErrorCode.STALE_BLOCK, e.code());
        assertTrue(e.getMessage().contains("was freed and reused (tag 29, now 30)"), e.getMessage());
        assertArrayEquals(theirs, fx.onServer(8, 0, 128), "the newer allocation's bytes are untouched");
        assertEquals(30, fx.volume.tags().get(8));
    }

    @Test
    void aClaimFollowsTheTagAsLongAsItIsOlderAndStopsAtANewerOne() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        fx.serverWrites(9, 7, 0, new byte[1]);
        await(t.write(fx.at(9, 12), 0, ByteBuffer.wrap(new byte[] {1})));
        assertEquals(12, fx.volume.tags().get(9), "an older tag (7) is replaced");
        await(t.write(fx.at(9, 12), 1, ByteBuffer.wrap(new byte[] {2})));
        assertEquals(12, fx.volume.tags().get(9), "its own tag is kept");
        assertArrayEquals(new byte[] {1, 2}, fx.onServer(9, 0, 2));
    }

    @Test
    void transfersLargerThanABufferMoveInPiecesBetweenTheSameTagSteps() throws Exception {
        fixture(Map.of(RdmaTierKeys.BUFFER_SIZE.name(), "4k"));
        BlockTransport t = transport();
        byte[] data = TierFixture.bytes(TierFixture.BLOCK - 10, 6);
        await(t.write(fx.at(4, 1), 10, ByteBuffer.wrap(data)));
        assertArrayEquals(data, fx.onServer(4, 10, data.length));
        assertArrayEquals(data, read(t, fx.at(4, 1), 10, data.length));
        fx.serverWrites(4, 2, 0, new byte[1]);
        assertEquals(ErrorCode.STALE_BLOCK, failure(t.read(fx.at(4, 1), 10, ByteBuffer.allocate(data.length))).code());
    }

    @Test
    void manyTransfersShareFewBuffersAndOneConnectionPerServer() throws Exception {
        fixture(Map.of(RdmaTierKeys.BUFFER_COUNT.name(), "2"));
        BlockTransport a = transport();
        BlockTransport b = transport();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            writes.add((i % 2 == 0 ? a : b).write(fx.at(i, 100 + i), 0, ByteBuffer.wrap(TierFixture.bytes(3000, i))));
        }
        for (CompletableFuture<Void> w : writes) {
            await(w);
        }
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        List<ByteBuffer> got = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            ByteBuffer dst = ByteBuffer.allocate(3000);
            got.add(dst);
            reads.add((i % 2 == 1 ? a : b).read(fx.at(i, 100 + i), 0, dst));
        }
        for (int i = 0; i < 16; i++) {
            await(reads.get(i));
            assertArrayEquals(TierFixture.bytes(3000, i), got.get(i).array(), "block " + i);
        }
        try (RdmaFabric.Lease l = fx.clientFabric.acquire(TierFixture.CLIENT, RdmaTierKeys.settings(fx.clientConf))) {
            assertEquals(1, ((FakeRdmaDevice) l.device()).connectionCount(), "both transports use one connection");
        }
    }

    @Test
    void aServerThatDiesIsUnavailableNamingItNeverADataError() throws Exception {
        fixture(Map.of());
        BlockTransport t = transport();
        await(t.write(fx.at(1, 1), 0, ByteBuffer.wrap(new byte[100])));
        fx.network.crash(TierFixture.SERVER);
        CreelException e = failure(t.read(fx.at(1, 1), 0, ByteBuffer.allocate(100)));
        assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("storage server localhost:7000"), e.getMessage());
        assertTrue(e.getMessage().contains(TierFixture.SERVER.getHostAddress()), "names the RDMA peer: "
                + e.getMessage());
        assertEquals(ErrorCode.UNAVAILABLE, failure(t.write(fx.at(1, 1), 0, ByteBuffer.allocate(1))).code());
    }

    @Test
    void aConnectionBrokenByARemoteAccessErrorIsUnavailableAndReplacedOnTheNextUse() throws Exception {
        fixture(Map.of());
        BlockTransport good = transport();
        byte[] data = TierFixture.bytes(500, 8);
        await(good.write(fx.at(1, 1), 0, ByteBuffer.wrap(data)));
        // A description whose segment key is wrong (as after a server restart re-registered its
        // memory): the device refuses the access, which breaks the shared connection.
        String segments = fx.info().attribute("rdma.segments");
        String tampered = segments.substring(0, segments.lastIndexOf(':') + 1) + "7777";
        StorageServerInfo wrongKey = fx.info().withAttributes(Map.of("rdma.segments", tampered));
        BlockTransport wrong = new RdmaTransportProvider(fx.clientFabric).open(wrongKey,
                new TransportContext(fx.clientConf, null));
        opened.add(wrong);
        CreelException e = failure(wrong.read(fx.at(1, 1), 0, ByteBuffer.allocate(500)));
        assertEquals(ErrorCode.UNAVAILABLE, e.code(), "a refused access is the path's fault: " + e.getMessage());
        assertTrue(e.getMessage().contains("remote access error"), e.getMessage());
        assertArrayEquals(data, read(good, fx.at(1, 1), 0, 500), "the next use connects again");
    }

    @Test
    void devicesThatDisagreeOnCompareAndSwapReadButLeaveWritesToAnotherTransport() throws Exception {
        fixture(Map.of());
        // A probe word that does not hold the probe value: what a client sees when its device and the
        // server's disagree on atomics (one of them swaps byte orders).
        try (RdmaFabric.Lease server = fx.serverFabric.acquire(TierFixture.SERVER, RdmaTierKeys.settings(fx.serverConf))) {
            ByteBuffer word = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
            word.putLong(0, Long.reverseBytes(RdmaExportLayout.PROBE));
            RegisteredMemory odd = server.device().register(word,
                    MemoryAccess.REMOTE_ATOMIC);
            String probe = Long.toHexString(odd.remote().address()) + "+8:" + Integer.toHexString(odd.rkey());
            BlockTransport t = new RdmaTransportProvider(fx.clientFabric).open(
                    fx.info().withAttributes(Map.of("rdma.probe", probe)), new TransportContext(fx.clientConf, null));
            opened.add(t);
            fx.serverWrites(3, 1, 0, new byte[] {7});
            assertArrayEquals(new byte[] {7}, read(t, fx.at(3, 1), 0, 1), "reads need no atomics");
            CreelException e = failure(t.write(fx.at(3, 1), 0, ByteBuffer.wrap(new byte[] {8})));
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains("the devices disagree on compare-and-swap"), e.getMessage());
            assertArrayEquals(new byte[] {7}, fx.onServer(3, 0, 1), "nothing was written");
            assertEquals(Long.reverseBytes(RdmaExportLayout.PROBE), word.getLong(0),
                    "the probe never changes the word");
        }
    }

    @Test
    void aClientDeviceWithoutAtomicsReadsButLeavesWritesToAnotherTransport() throws Exception {
        fixture(Map.of());
        fx.network.atomics(AtomicSupport.NONE); // the client's device, opened next, has none
        BlockTransport t = transport();
        assertFalse(t.supportsWrite(), "writes claim tags with compare-and-swap");
        fx.serverWrites(0, 1, 0, new byte[] {5});
        assertArrayEquals(new byte[] {5}, read(t, fx.at(0, 1), 0, 1));
        assertEquals(ErrorCode.UNAVAILABLE, failure(t.write(fx.at(0, 1), 0, ByteBuffer.allocate(1))).code());
    }

    @Test
    void aServerWithoutAnRdmaExportOrAClientWithRdmaOffOrMissingIsNotReached() {
        fixture(Map.of(RdmaTierKeys.ENABLED.name(), "false"));
        assertNull(new RdmaTransportProvider(fx.clientFabric).open(fx.info(), new TransportContext(fx.clientConf, null)));
        assertEquals("creel.rdma.enabled is false",
                new RdmaTransportProvider(fx.clientFabric).unavailableReason(fx.clientConf));

        RdmaFabric none = new RdmaFabric(fx.network, () -> "no /dev/infiniband: this kernel offers no RDMA");
        assertNull(new RdmaTransportProvider(none).open(fx.info(), new TransportContext(fx.serverConf, null)));
        assertEquals("no /dev/infiniband: this kernel offers no RDMA",
                new RdmaTransportProvider(none).unavailableReason(fx.serverConf));

        StorageServerInfo plain = StorageServerInfo.of(3, "dram", "dram", "localhost", 7000, "server-host",
                TierFixture.BLOCKS, TierFixture.BLOCK, fx.volume.token(), Map.of());
        assertNull(new RdmaTransportProvider(fx.clientFabric).open(plain, new TransportContext(fx.serverConf, null)),
                "a server without an rdma export");
        StorageServerInfo broken = fx.info().withAttributes(Map.of("rdma.tags", "nonsense"));
        assertNull(new RdmaTransportProvider(fx.clientFabric).open(broken, new TransportContext(fx.serverConf, null)),
                "a description this client cannot use");
    }
}
