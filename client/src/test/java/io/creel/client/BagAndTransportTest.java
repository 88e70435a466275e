package io.creel.client;

import static io.creel.client.TestData.bytes;
import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.testkit.FakeTransportProvider;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import io.creel.storage.transport.TransportSelector;
import io.creel.storage.transport.TransportSelector.Direction;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The Bag stream, and how block transports are chosen and fall back. */
class BagAndTransportTest {
    private static final int B = FakeCluster.BLOCK;

    @Test
    void aBagReadsAsItsFilesConcatenatedInListingOrderWithBoundedReadsInFlight() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            cluster.settings().put("creel.client.bag.reads.in.flight", "4");
            CreelClient c = cluster.client();
            get(c.create("/bag", NodeType.BAG));
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            int[] sizes = {10, 0, B, 3 * B + 5, 1, 700, 2 * B, 0, 33, B - 1, 5000, 12, 12, 4 * B, 9};
            for (int i = 0; i < sizes.length; i++) {
                byte[] d = bytes(sizes[i], 100 + i);
                CreelNode f = get(c.create("/bag/part-" + i, NodeType.FILE));
                get(f.writer().write(ByteBuffer.wrap(d)));
                get(f.writer().close());
                expected.write(d);
            }
            cluster.storage.delayMillis = 20; // so that concurrent reads overlap visibly
            cluster.storage.maxReadsInFlight.set(0);
            CreelClient reader = cluster.client();
            byte[] got;
            try (InputStream in = get(reader.lookup("/bag")).bagStream()) {
                got = in.readAllBytes();
            }
            assertArrayEquals(expected.toByteArray(), got);
            int max = cluster.storage.maxReadsInFlight.get();
            assertTrue(max <= 4, "at most 4 reads in flight, saw " + max);
            assertTrue(max >= 2, "reads of several files overlap, saw " + max);
        }
    }

    @Test
    void onlyABagHasABagStream() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/d", NodeType.DIRECTORY));
            CreelException e = org.junit.jupiter.api.Assertions.assertThrows(CreelException.class,
                    () -> get(c.lookup("/d")).bagStream());
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        }
    }

    /** A cheap transport (the test kit's) that fails every call with {@code code}. */
    private static FakeTransportProvider failing(String name, int cost, ErrorCode code, FakeCluster cluster) {
        return new FakeTransportProvider(name, cost, server -> cluster.storage).failingWith(code);
    }

    @Test
    void aFailingLocalTransportFallsBackToTheNextOneButDataErrorsDoNot() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = bytes(100, 7);
            CreelNode f = get(cluster.client().create("/f", NodeType.FILE));
            get(f.writer().write(ByteBuffer.wrap(data)));
            get(f.writer().close());
            BlockLocation loc = new BlockLocation(0, 0, cluster.storage.info(), 0, 0);
            CreelConf conf = cluster.conf();
            List<BlockTransportProvider> fakes = TransportSelector.loadProviders();

            FakeTransportProvider local = failing("local", 0, ErrorCode.INTERNAL, cluster);
            try (BlockTransfers t = new BlockTransfers(new TransportSelector(List.of(fakes.get(0), local),
                    new TransportContext(conf, null)))) {
                CreelClient c = cluster.client();
                CreelNode node = get(c.lookup("/f"));
                BlockLocation block = get(c.blockCache().get(new io.creel.client.block.BlockKey(0, node.info().id(), 0),
                        () -> CompletableFuture.failedFuture(new AssertionError("block 0 came with the lookup"))));
                ByteBuffer dst = ByteBuffer.allocate(100);
                get(t.read("/f", 0, BlockLocator.at(block), 0, dst));
                assertArrayEquals(data, dst.array());
                assertEquals(1, local.reads(), "tried the cheap transport once");
                assertEquals("fake", t.selector().transportName(block.server(), Direction.READ),
                        "then kept the fallback");
                get(t.read("/f", 0, BlockLocator.at(block), 0, ByteBuffer.allocate(10)));
                assertEquals(1, local.reads());
            }

            try (BlockTransfers t = new BlockTransfers(new TransportSelector(List.of(fakes.get(0),
                    failing("local", 0, ErrorCode.STALE_BLOCK, cluster)), new TransportContext(conf, null)))) {
                assertEquals(ErrorCode.STALE_BLOCK, failure(t.read("/f", 0, BlockLocator.at(loc), 0,
                        ByteBuffer.allocate(10))).code(), "a stale block is stale on every transport");
                assertEquals("local", t.selector().transportName(loc.server(), Direction.READ));
            }
        }
    }
}
