package io.creel.storage.rdma.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.export.RdmaBlockExporter;
import io.creel.storage.rdma.tier.TierFixture;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.spi.TransportCost;
import io.creel.storage.spi.Volume;
import io.creel.storage.testkit.FakeServer;
import io.creel.storage.testkit.FakeTransportProvider;
import io.creel.storage.testkit.ServerRule;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import io.creel.storage.transport.TransportSelector.Direction;
import io.creel.storage.transport.TransportSelector;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rdma transport among the others, under the one transport rule: chosen before TCP where it
 * reaches a server, and left for TCP when it fails (its failures are never errors about the data),
 * or for writes when it cannot claim tags.
 */
class FallbackTest {
    @TempDir
    Path dir;
    private TierFixture fx;

    /** "tcp" as the storage server would serve it: the test kit's transport under the server's rule, on the volume. */
    private static FakeTransportProvider serverSide(Volume volume) {
        FakeServer server = ServerRule.serving(volume, "tcp");
        return new FakeTransportProvider("tcp", TransportCost.SERVER_OVER_TCP.value(), info -> server);
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static void await(CompletableFuture<?> f) throws Exception {
        f.get(30, TimeUnit.SECONDS);
    }

    @Test
    void rdmaIsPreferredToTcpAndABrokenRdmaPathFallsBackToTcpWithTheRightBytes() throws Exception {
        fx = new TierFixture(dir, Map.of());
        fx.export(new RdmaBlockExporter(fx.serverFabric));
        FakeTransportProvider tcp = serverSide(fx.volume);
        TransportSelector selector = new TransportSelector(List.of(tcp, new RdmaTransportProvider(fx.clientFabric)),
                new TransportContext(fx.clientConf, null));
        try (BlockTransfers transfers = new BlockTransfers(selector)) {
            byte[] data = TierFixture.bytes(4000, 1);
            await(transfers.write("/f", 0, BlockLocator.at(fx.at(5, 3)), 0, ByteBuffer.wrap(data)));
            ByteBuffer got = ByteBuffer.allocate(4000);
            await(transfers.read("/f", 0, BlockLocator.at(fx.at(5, 3)), 0, got));
            assertArrayEquals(data, got.array());
            assertEquals("rdma", selector.transportName(fx.info(), Direction.READ));
            assertEquals("rdma", selector.transportName(fx.info(), Direction.WRITE));
            assertEquals(0, tcp.reads() + tcp.writes(), "TCP was not needed");

            fx.network.crash(TierFixture.SERVER); // the RDMA path dies, the server does not
            ByteBuffer again = ByteBuffer.allocate(4000);
            await(transfers.read("/f", 0, BlockLocator.at(fx.at(5, 3)), 0, again));
            assertArrayEquals(data, again.array(), "the read fell back to TCP");
            assertEquals("tcp", selector.transportName(fx.info(), Direction.READ));
            assertEquals(1, tcp.reads());

            // A stale location is an error about the data: no fallback could help, so it is not tried.
            fx.serverWrites(5, 4, 0, new byte[1]);
            CompletableFuture<Void> stale = transfers.read("/f", 0, BlockLocator.at(fx.at(5, 3)), 0,
                    ByteBuffer.allocate(10));
            CreelException e = (CreelException) assertThrows(ExecutionException.class, () -> await(stale)).getCause();
            assertEquals(ErrorCode.STALE_BLOCK, e.code());
        }
    }

    @Test
    void withoutAtomicsOnTheClientWritesGoOverTcpAndReadsOverRdma() throws Exception {
        fx = new TierFixture(dir, Map.of());
        fx.export(new RdmaBlockExporter(fx.serverFabric));
        fx.network.atomics(AtomicSupport.NONE);
        FakeTransportProvider tcp = serverSide(fx.volume);
        TransportSelector selector = new TransportSelector(List.of(new RdmaTransportProvider(fx.clientFabric), tcp),
                new TransportContext(fx.clientConf, null));
        try (BlockTransfers transfers = new BlockTransfers(selector)) {
            byte[] data = TierFixture.bytes(100, 2);
            await(transfers.write("/f", 0, BlockLocator.at(fx.at(2, 1)), 0, ByteBuffer.wrap(data)));
            ByteBuffer got = ByteBuffer.allocate(100);
            await(transfers.read("/f", 0, BlockLocator.at(fx.at(2, 1)), 0, got));
            assertArrayEquals(data, got.array());
            assertEquals("tcp", selector.transportName(fx.info(), Direction.WRITE));
            assertEquals("rdma", selector.transportName(fx.info(), Direction.READ));
            assertEquals(1, tcp.writes());
            assertEquals(0, tcp.reads());
        }
    }
}
