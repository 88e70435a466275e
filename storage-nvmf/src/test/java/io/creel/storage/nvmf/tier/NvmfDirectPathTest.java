package io.creel.storage.nvmf.tier;

import static io.creel.storage.nvmf.tier.NvmfServerFixture.BLOCK;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.await;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.pattern;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.read;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.nvmf.format.NvmfAttributes;
import io.creel.storage.nvmf.tcp.FakeTarget;
import io.creel.storage.nvmf.transport.NvmfTransportProvider;
import io.creel.storage.nvmf.transport.SharedTargets;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.tcp.transport.TcpTransportProvider;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import io.creel.storage.transport.TransportSelector;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Clients reading and writing an nvmf server's blocks at the target, without the server in the data
 * path: bytes land where the server's own path finds them and the other way round, any alignment,
 * the stale-block guarantee through the target's tag sectors, a namespace that is not the server's,
 * one controller per target per process, and falling back to the server.
 */
class NvmfDirectPathTest {

    @Test
    void bytesWrittenAtTheTargetReadBackAtEveryAlignmentAndSize() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport direct = f.direct();
            assertEquals("nvmf-tcp", direct.name());
            byte[] model = new byte[BLOCK];
            BlockLocation at = f.at(6, 40);
            int seed = 0;
            int[][] ranges = {{0, 1}, {0, 512}, {1, 511}, {511, 2}, {512, 512}, {100, 4096}, {4095, 8193},
                    {65_535, 200_001}, {BLOCK - 1, 1}, {BLOCK - 700, 700}, {0, BLOCK}, {3, BLOCK - 3}};
            for (int[] r : ranges) {
                byte[] bytes = pattern(r[1], ++seed);
                write(direct, at, r[0], bytes);
                System.arraycopy(bytes, 0, model, r[0], r[1]);
                assertArrayEquals(bytes, read(direct, at, r[0], r[1]), "range " + r[0] + "+" + r[1]);
            }
            assertArrayEquals(model, read(direct, at, 0, BLOCK), "the whole block, after every write");
            assertArrayEquals(model, f.onTarget(6, 0, BLOCK), "and on the namespace where the layout puts it");
        }
    }

    @Test
    void theDirectPathAndThePathThroughTheServerSeeTheSameBlocks() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport direct = f.direct();
            BlockTransport tcp = f.throughServer();
            byte[] a = pattern(300_000, 4);
            write(direct, f.at(7, 5), 10, a);
            assertArrayEquals(a, read(tcp, f.at(7, 5), 10, a.length), "written at the target, read via the server");
            byte[] b = pattern(200_000, 5);
            write(tcp, f.at(8, 6), 99, b);
            assertArrayEquals(b, read(direct, f.at(8, 6), 99, b.length), "written via the server, read at the target");
            // The same allocation written both ways keeps one tag and all its bytes.
            byte[] c = pattern(1000, 6);
            write(tcp, f.at(7, 5), 10, c);
            byte[] expected = a.clone();
            System.arraycopy(c, 0, expected, 0, c.length);
            assertArrayEquals(expected, read(direct, f.at(7, 5), 10, a.length));
        }
    }

    @Test
    void aReadThroughAFreedAndReusedBlockFailsInsteadOfReturningTheNewOwnersBytes() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport direct = f.direct();
            BlockTransport tcp = f.throughServer();
            byte[] mine = pattern(4096, 7);
            write(direct, f.at(9, 5), 0, mine);
            assertArrayEquals(mine, read(direct, f.at(9, 5), 0, 4096));

            // The block is freed and allocated again with a newer tag; the new owner writes directly too.
            byte[] theirs = pattern(4096, 8);
            write(direct, f.at(9, 9), 0, theirs);

            for (BlockTransport t : List.of(direct, tcp)) {
                CreelException e = assertThrows(CreelException.class, () -> read(t, f.at(9, 5), 0, 4096));
                assertEquals(ErrorCode.STALE_BLOCK, e.code(), t.name());
                assertTrue(e.getMessage().contains("freed and reused (tag 5, now 9)"), e.getMessage());
            }
            // The old owner can no longer write there either, directly or through the server.
            for (BlockTransport t : List.of(direct, tcp)) {
                CreelException e = assertThrows(CreelException.class, () -> write(t, f.at(9, 5), 0, mine));
                assertEquals(ErrorCode.STALE_BLOCK, e.code(), t.name());
            }
            assertArrayEquals(theirs, f.onTarget(9, 0, 4096), "the new owner's bytes are untouched");
            assertArrayEquals(theirs, read(direct, f.at(9, 9), 0, 4096));
        }
    }

    @Test
    void aReadOfABlockItsAllocationHasNotWrittenFails() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport direct = f.direct();
            CreelException never = assertThrows(CreelException.class, () -> read(direct, f.at(10, 3), 0, 100));
            assertEquals(ErrorCode.STALE_BLOCK, never.code());
            assertTrue(never.getMessage().contains("has not been written under this allocation yet"),
                    never.getMessage());
            write(direct, f.at(10, 3), 0, pattern(100, 9));
            CreelException newer = assertThrows(CreelException.class, () -> read(direct, f.at(10, 4), 0, 100));
            assertEquals(ErrorCode.STALE_BLOCK, newer.code());
            assertTrue(newer.getMessage().contains("still holds") || newer.getMessage().contains("tag 3"),
                    newer.getMessage());
        }
    }

    @Test
    void aNamespaceThatIsNotTheServersIsNeverReadOrWritten() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of());
             FakeTarget other = new FakeTarget(512, (64L << 20) / 512)) {
            // What a client would reach if the server's target address led it somewhere else.
            Map<String, String> attributes = new HashMap<>(f.info().attributes());
            attributes.put(NvmfAttributes.TCP_PORT, Integer.toString(other.port()));
            StorageServerInfo elsewhere = f.info().withAttributes(attributes);
            BlockTransport t = new NvmfTransportProvider.Tcp().open(elsewhere,
                    new TransportContext(f.conf, f.connections));
            try {
                BlockLocation at = new BlockLocation(1, 0, elsewhere, 1, 1);
                CreelException e = assertThrows(CreelException.class, () -> write(t, at, 0, pattern(512, 1)));
                assertEquals(ErrorCode.UNAVAILABLE, e.code(), "not the data's fault: the client goes via the server");
                assertTrue(e.getMessage().contains("holds no Creel volume"), e.getMessage());
                assertEquals(0, other.writes.get(), "nothing was written to the other namespace");
            } finally {
                t.close();
            }
            // A description from before the server restarted: its token is not the one on the namespace.
            StorageServerInfo older = StorageServerInfo.of(0, "nvmf", "nvmf", "127.0.0.1", f.server.port(), "h",
                    f.info().blockCount(), BLOCK, f.info().localToken() + 1, f.info().attributes());
            BlockTransport old = new NvmfTransportProvider.Tcp().open(older, new TransportContext(f.conf,
                    f.connections));
            try {
                CreelException e = assertThrows(CreelException.class,
                        () -> read(old, new BlockLocation(1, 0, older, 1, 1), 0, 10));
                assertEquals(ErrorCode.UNAVAILABLE, e.code());
                assertTrue(e.getMessage().contains("not volume"), e.getMessage());
            } finally {
                old.close();
            }
        }
    }

    @Test
    void oneControllerPerTargetServesEveryTransportOfTheProcess() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            int before = SharedTargets.process().controllers();
            TransportContext ctx = new TransportContext(f.conf, f.connections);
            BlockTransport a = new NvmfTransportProvider.Tcp().open(f.info(), ctx);
            BlockTransport b = new NvmfTransportProvider.Tcp().open(f.info(), ctx);
            try {
                write(a, f.at(11, 2), 0, pattern(512, 1));
                assertArrayEquals(pattern(512, 1), read(b, f.at(11, 2), 0, 512));
                assertEquals(before + 1, SharedTargets.process().controllers());
            } finally {
                a.close();
                assertEquals(before + 1, SharedTargets.process().controllers(), "b still uses it");
                b.close();
            }
            assertEquals(before, SharedTargets.process().controllers(), "the last user closed it");
        }
    }

    @Test
    void manyThreadsWriteAndReadTheirOwnBlocksAtOnce() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport direct = f.direct();
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int block = 20 + i;
                all.add(CompletableFuture.runAsync(() -> {
                    for (int round = 0; round < 4; round++) {
                        byte[] data = pattern(64 * 1024 + round * 1000 + 3, block * 10 + round);
                        write(direct, f.at(block, 1), round * 7, data);
                        assertArrayEquals(data, read(direct, f.at(block, 1), round * 7, data.length));
                    }
                }));
            }
            await(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)));
        }
    }

    @Test
    void aClientThatCannotReachTheTargetGoesThroughTheServer() throws Exception {
        // The server tells clients a target address where nothing listens.
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of("creel.storage.nvmf.advertise.address",
                "127.0.0.2"))) {
            TransportSelector selector = new TransportSelector(List.of(new NvmfTransportProvider.Tcp(),
                    new TcpTransportProvider()), new TransportContext(f.conf, f.connections));
            try (BlockTransfers transfers = new BlockTransfers(selector)) {
                byte[] data = pattern(50_000, 12);
                await(transfers.write("/file", 0, BlockLocator.at(f.at(12, 4)), 0, ByteBuffer.wrap(data)));
                assertEquals("tcp", selector.transportName(f.info(), TransportSelector.Direction.WRITE));
                ByteBuffer back = ByteBuffer.allocate(data.length);
                await(transfers.read("/file", 0, BlockLocator.at(f.at(12, 4)), 0, back));
                assertArrayEquals(data, back.array());
                assertArrayEquals(data, f.onTarget(12, 0, data.length), "the server wrote it to the target");
            }
        }
    }

    @Test
    void aClientWhoseControllerWasLostConnectsAnewForItsNextTransport() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            TransportContext ctx = new TransportContext(f.conf, f.connections);
            BlockTransport first = new NvmfTransportProvider.Tcp().open(f.info(), ctx);
            try {
                write(first, f.at(14, 1), 0, pattern(4096, 1));
                int before = SharedTargets.process().controllers();
                f.target.hook = c -> new FakeTarget.Drop();
                f.target.dropAllConnections();
                CreelException e = assertThrows(CreelException.class, () -> read(first, f.at(14, 1), 0, 4096));
                assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.toString());
                NvmfTierTest.until("the lost controller is forgotten",
                        () -> SharedTargets.process().controllers() == before - 1);
                f.target.hook = c -> FakeTarget.NORMAL;
                NvmfTierTest.until("the server is back", () -> f.server.unavailable() == null);
                BlockTransport second = new NvmfTransportProvider.Tcp().open(f.info(), ctx);
                try {
                    assertArrayEquals(pattern(4096, 1), read(second, f.at(14, 1), 0, 4096),
                            "a new transport reaches the target through a new controller");
                } finally {
                    second.close();
                }
            } finally {
                first.close();
            }
        }
    }

    @Test
    void aTargetThatGoesAwayFailsDirectTransfersWithAClearError() throws Exception {
        try (NvmfServerFixture f = new NvmfServerFixture(Map.of())) {
            BlockTransport direct = f.direct();
            write(direct, f.at(13, 1), 0, pattern(512, 1));
            f.target.hook = c -> new FakeTarget.Stall();
            CreelException e = assertThrows(CreelException.class, () -> read(direct, f.at(13, 1), 0, 512));
            assertTrue(e.code() == ErrorCode.TIMEOUT || e.code() == ErrorCode.UNAVAILABLE, e.toString());
            assertTrue(e.getMessage().contains(FakeTarget.NQN), "names the target: " + e.getMessage());
        }
    }
}
