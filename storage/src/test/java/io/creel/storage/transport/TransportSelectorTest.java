package io.creel.storage.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.testkit.FakeServers;
import io.creel.storage.testkit.FakeTransportProvider;
import io.creel.storage.transport.TransportSelector.Direction;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which transport reaches a server: the cheapest provider that can, per server and direction, each
 * provider asked once per server, and every transport opened closed once.
 */
class TransportSelectorTest {
    private static final TransportContext CONTEXT = new TransportContext(CreelConf.defaults(), null);

    private final FakeServers servers = new FakeServers();
    private final StorageServerInfo a = FakeServers.server("10.0.0.1", 7001, 11);
    private final StorageServerInfo b = FakeServers.server("10.0.0.2", 7001, 22);

    private FakeTransportProvider provider(String name, int cost) {
        return new FakeTransportProvider(name, cost, servers);
    }

    private static TransportSelector selector(BlockTransportProvider... providers) {
        return new TransportSelector(List.of(providers), CONTEXT);
    }

    private static List<String> names(List<BlockTransportProvider> providers) {
        return providers.stream().map(BlockTransportProvider::name).toList();
    }

    @Test
    void theCheapestProviderIsChosenWhateverOrderTheProvidersComeIn() {
        try (TransportSelector s = selector(provider("tcp", 100), provider("mapped", 10), provider("rdma", 50))) {
            assertEquals(List.of("mapped", "rdma", "tcp"), names(s.providers()));
            assertEquals("mapped", s.transportName(a, Direction.READ));
            assertEquals("mapped", s.transportName(a, Direction.WRITE));
        }
    }

    @Test
    void creelClientTransportsKeepsOnlyTheNamedProviders() {
        TransportContext onlyRdma = new TransportContext(CreelConf.defaults().with(TransportKeys.TRANSPORTS, "rdma"),
                null);
        try (TransportSelector s = new TransportSelector(List.of(provider("tcp", 100), provider("rdma", 50)),
                onlyRdma)) {
            assertEquals(List.of("rdma"), names(s.providers()));
            assertEquals("rdma", s.transportName(a, Direction.READ));
        }
        TransportContext none = new TransportContext(CreelConf.defaults().with(TransportKeys.TRANSPORTS, "rdma"), null);
        try (TransportSelector s = new TransportSelector(List.of(provider("tcp", 100), provider("rdma", 50)
                .declining()), none)) {
            CreelException e = assertThrows(CreelException.class, () -> s.transportName(a, Direction.READ));
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
            assertTrue(e.getMessage().contains("providers tried: [rdma]"), e.getMessage());
        }
    }

    @Test
    void aTransportNamedInCreelClientTransportsThatIsNotThereIsAConfigurationError() {
        TransportContext c = new TransportContext(CreelConf.defaults().with(TransportKeys.TRANSPORTS, "tcp,rdma"), null);
        CreelException e = assertThrows(CreelException.class,
                () -> new TransportSelector(List.of(provider("tcp", 100), provider("mapped", 10)), c));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.client.transports names transport 'rdma'"), e.getMessage());
        assertTrue(e.getMessage().contains("there are: tcp, mapped"), e.getMessage());
    }

    @Test
    void theProvidersOnTheClassPathAreFoundCheapestFirst() {
        assertEquals(List.of("loaded-cheap", "loaded-costly"), names(TransportSelector.loadProviders()),
                "registered costliest first, sorted by cost");
        try (TransportSelector s = new TransportSelector(CONTEXT)) {
            assertEquals(List.of("loaded-cheap", "loaded-costly"), names(s.providers()));
            assertEquals("loaded-cheap", s.transportName(a, Direction.READ));
        }
    }

    @Test
    void aProviderThatDeclinesIsAskedOncePerServer() {
        FakeTransportProvider mapped = provider("mapped", 10).declining();
        FakeTransportProvider tcp = provider("tcp", 100);
        try (TransportSelector s = selector(mapped, tcp); BlockTransfers t = new BlockTransfers(s)) {
            for (int i = 0; i < 3; i++) {
                Await.result(t.read("/f", 0, BlockLocator.at(FakeServers.at(a, 1, 0)), 0, ByteBuffer.allocate(8)));
                Await.result(t.write("/f", 0, BlockLocator.at(FakeServers.at(a, 1, 0)), 0, ByteBuffer.allocate(8)));
            }
            assertEquals("tcp", s.transportName(a, Direction.READ));
            assertEquals(List.of(a), mapped.askedFor(), "asked once for both directions and all transfers");
            assertEquals("tcp", s.transportName(b, Direction.WRITE));
            assertEquals(List.of(a, b), mapped.askedFor(), "a new server is asked about once");
            assertEquals(3, tcp.reads());
            assertEquals(3, tcp.writes());
        }
    }

    @Test
    void aProviderThatThrowsOnOpenIsTreatedAsDecliningAndAskedOnce() {
        FakeTransportProvider rdma = provider("rdma", 50).throwingOnOpen();
        try (TransportSelector s = selector(rdma, provider("tcp", 100))) {
            assertEquals("tcp", s.transportName(a, Direction.READ));
            assertEquals("tcp", s.transportName(a, Direction.WRITE));
            assertEquals("tcp", s.transportName(a, Direction.READ));
            assertEquals(1, rdma.opens());
        }
    }

    @Test
    void eachProviderIsOpenedOncePerServerAndItsTransportServesBothDirections() {
        FakeTransportProvider mapped = provider("mapped", 10);
        try (TransportSelector s = selector(mapped, provider("tcp", 100)); BlockTransfers t = new BlockTransfers(s)) {
            BlockLocator at = BlockLocator.at(FakeServers.at(a, 2, 5));
            Await.result(t.write("/f", 0, at, 0, ByteBuffer.wrap(new byte[] {1, 2, 3})));
            ByteBuffer back = ByteBuffer.allocate(3);
            Await.result(t.read("/f", 0, at, 0, back));
            assertArrayEquals(new byte[] {1, 2, 3}, back.array());
            assertEquals(1, mapped.opens());
            assertEquals(1, mapped.reads());
            assertEquals(1, mapped.writes());
        }
    }

    @Test
    void aReadOnlyTransportReadsAndLeavesWritesToTheNextCostlierOne() {
        FakeTransportProvider localFile = provider("local-file", 20).readOnly();
        FakeTransportProvider tcp = provider("tcp", 100);
        try (TransportSelector s = selector(localFile, tcp); BlockTransfers t = new BlockTransfers(s)) {
            BlockLocator at = BlockLocator.at(FakeServers.at(a, 2, 5));
            for (int i = 0; i < 2; i++) {
                Await.result(t.write("/f", 0, at, 10, ByteBuffer.wrap(new byte[] {9, 8, (byte) i})));
                ByteBuffer back = ByteBuffer.allocate(3);
                Await.result(t.read("/f", 0, at, 10, back));
                assertArrayEquals(new byte[] {9, 8, (byte) i}, back.array());
            }
            assertEquals("local-file", s.transportName(a, Direction.READ));
            assertEquals("tcp", s.transportName(a, Direction.WRITE));
            assertEquals(0, localFile.writes(), "never asked to write");
            assertEquals(2, localFile.reads());
            assertEquals(0, tcp.reads());
            assertEquals(2, tcp.writes());
            assertEquals(1, localFile.opens(), "one transport for both directions");
            assertEquals(1, tcp.opens());
        }
    }

    @Test
    void aServerIsKnownByItsAddressAndMediumTokenNotByItsId() {
        FakeTransportProvider tcp = provider("tcp", 100);
        try (TransportSelector s = selector(tcp)) {
            s.transportName(a, Direction.READ);
            s.transportName(a.withServerId(7), Direction.READ);
            assertEquals(1, tcp.opens(), "ids are per namenode: the same server under another id");
            StorageServerInfo restarted = FakeServers.server("10.0.0.1", 7001, 12);
            s.transportName(restarted, Direction.READ);
            assertEquals(2, tcp.opens(), "a new medium at the same address is another server");
        }
    }

    @Test
    void noTransportIsUnavailableNamingTheServerAndEveryProviderTried() {
        try (TransportSelector s = selector(provider("tcp", 100).declining(), provider("mapped", 10).declining())) {
            CreelException e = assertThrows(CreelException.class, () -> s.transportName(a, Direction.READ));
            assertEquals(ErrorCode.UNAVAILABLE, e.code());
            assertEquals("no transport can read from storage server 10.0.0.1:7001 (tier fake); providers tried: "
                    + "[mapped, tcp]", e.getMessage());
        }
        try (TransportSelector s = selector(provider("local-file", 20).readOnly())) {
            assertEquals("local-file", s.transportName(a, Direction.READ));
            CreelException e = assertThrows(CreelException.class, () -> s.transportName(a, Direction.WRITE));
            assertTrue(e.getMessage().startsWith("no transport can write to storage server 10.0.0.1:7001"),
                    e.getMessage());
        }
        try (TransportSelector s = selector()) {
            CreelException e = assertThrows(CreelException.class, () -> s.transportName(a, Direction.READ));
            assertTrue(e.getMessage().endsWith("providers tried: none on the class path"), e.getMessage());
        }
    }

    @Test
    void closeClosesEveryTransportItOpenedOnce() {
        FakeTransportProvider localFile = provider("local-file", 20).readOnly();
        FakeTransportProvider rdma = provider("rdma", 50).declining();
        FakeTransportProvider tcp = provider("tcp", 100);
        TransportSelector s = selector(localFile, rdma, tcp);
        for (StorageServerInfo server : List.of(a, b)) {
            s.transportName(server, Direction.READ);
            s.transportName(server, Direction.WRITE);
        }
        s.close();
        assertEquals(2, localFile.closes(), "one transport per server, shared by both directions");
        assertEquals(2, tcp.closes());
        s.close();
        assertEquals(2, localFile.closes(), "a second close closes nothing again");
        assertEquals(2, tcp.closes());
    }

    @Test
    void aTransportThatFailsToCloseDoesNotKeepTheOthersOpen() {
        FakeTransportProvider mapped = provider("mapped", 10).readOnly().throwingOnClose();
        FakeTransportProvider tcp = provider("tcp", 100);
        TransportSelector s = selector(mapped, tcp);
        s.transportName(a, Direction.READ);
        s.transportName(a, Direction.WRITE);
        s.close();
        assertEquals(1, mapped.closes());
        assertEquals(1, tcp.closes());
    }

    @Test
    void aFallbackForOneServerLeavesTheOthersOnTheCheapTransport() {
        FakeTransportProvider mapped = provider("mapped", 10);
        try (TransportSelector s = selector(mapped, provider("tcp", 100)); BlockTransfers t = new BlockTransfers(s)) {
            BlockLocation onA = FakeServers.at(a, 0, 0);
            mapped.failingWith(ErrorCode.UNAVAILABLE);
            Await.result(t.read("/f", 0, BlockLocator.at(onA), 0, ByteBuffer.allocate(4)));
            mapped.failingWith(null);
            Await.result(t.read("/g", 0, BlockLocator.at(FakeServers.at(b, 0, 0)), 0, ByteBuffer.allocate(4)));
            assertEquals("tcp", s.transportName(a, Direction.READ));
            assertEquals("mapped", s.transportName(b, Direction.READ));
        }
    }
}
