package io.creel.client;

import static io.creel.client.TestData.bytes;
import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A direct reader's read-ahead: small reads in order from a server a round trip away are served from
 * windows fetched ahead; every other read goes straight to the server; the bytes are always the node's.
 */
class ReadAheadTest {
    private static final int B = FakeCluster.BLOCK;
    private static final int BLOCKS = 40;

    private static byte[] writeFile(CreelClient c, String path, byte[] data) throws Exception {
        CreelNode f = get(c.create(path, NodeType.FILE));
        get(f.writer().write(ByteBuffer.wrap(data)));
        get(f.writer().close());
        return data;
    }

    /** Reads {@code n} bytes in order, {@code piece} at a time, each waited for. */
    private static byte[] readInOrder(DirectReader r, int n, int piece) throws Exception {
        ByteBuffer all = ByteBuffer.allocate(n);
        ByteBuffer buf = ByteBuffer.allocateDirect(piece);
        while (all.hasRemaining()) {
            buf.clear().limit(Math.min(piece, all.remaining()));
            int got = get(r.read(buf));
            assertEquals(buf.limit(), got, "a read fills the buffer up to the end of the node");
            all.put(buf.flip());
        }
        return all.array();
    }

    @Test
    void smallReadsInOrderFromASlowServerAreServedFromWindowsFetchedAhead() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = writeFile(cluster.client(), "/f", bytes(BLOCKS * B + 100, 1));
            cluster.storage.delayMillis = 2;
            CreelNode node = get(cluster.client().lookup("/f"));
            int before = cluster.storage.reads.get();
            assertArrayEquals(data, readInOrder(node.reader(), data.length, 512));
            int reads = cluster.storage.reads.get() - before;
            // 8 pieces per block were asked for: the server saw about one read per block instead (a
            // few more if, on a loaded machine, a read looked as if it completed at once).
            assertTrue(reads >= BLOCKS + 1 && reads < 2 * BLOCKS,
                    "server reads for " + (data.length / 512 + 1) + " reads of 512 bytes: " + reads);
            assertEquals(-1, get(node.reader().read(data.length, ByteBuffer.allocate(1))), "the end is the end");
        }
    }

    @Test
    void positionalReadsAndLargeReadsGoStraightToTheServer() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = writeFile(cluster.client(), "/f", bytes(8 * B, 2));
            CreelNode node = get(cluster.client().lookup("/f"));
            int before = cluster.storage.reads.get();
            ByteBuffer small = ByteBuffer.allocate(512);
            for (int i = 0; i < 16; i++) {
                get(node.read(i * 512L, small.clear()));
                assertArrayEquals(Arrays.copyOfRange(data, i * 512, i * 512 + 512), small.array());
            }
            assertEquals(16, cluster.storage.reads.get() - before, "positional reads: one server read each");

            before = cluster.storage.reads.get();
            assertArrayEquals(data, readInOrder(node.reader(), data.length, B / 2));
            assertEquals(16, cluster.storage.reads.get() - before,
                    "reads over a quarter of a window: one server read each");
        }
    }

    @Test
    void aReaderThatJumpsGetsTheRightBytesAndReadsAheadAgainOnceInOrder() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = writeFile(cluster.client(), "/f", bytes(BLOCKS * B, 3));
            cluster.storage.delayMillis = 1; // a round trip away: reads never complete at once
            CreelNode node = get(cluster.client().lookup("/f"));
            DirectReader r = node.reader();
            assertArrayEquals(Arrays.copyOfRange(data, 0, 3000), readInOrder(r, 3000, 300));
            r.seek(20L * B + 7);
            assertArrayEquals(Arrays.copyOfRange(data, 20 * B + 7, 20 * B + 7 + 5000), readInOrder(r, 5000, 500));
            r.seek(100);
            assertArrayEquals(Arrays.copyOfRange(data, 100, 100 + 3000), readInOrder(r, 3000, 1000));
            int before = cluster.storage.reads.get();
            assertArrayEquals(Arrays.copyOfRange(data, 3100, data.length), readInOrder(r, data.length - 3100, 100));
            assertTrue(cluster.storage.reads.get() - before <= BLOCKS + 1, "in order again: reads ahead again");
        }
    }

    @Test
    void withReadAheadOffEveryReadGoesToTheServer() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            cluster.settings().put("creel.client.read.ahead", "0");
            byte[] data = writeFile(cluster.client(), "/f", bytes(4 * B, 4));
            CreelNode node = get(cluster.client().lookup("/f"));
            int before = cluster.storage.reads.get();
            assertArrayEquals(data, readInOrder(node.reader(), data.length, 256));
            assertEquals(4 * B / 256, cluster.storage.reads.get() - before);
        }
    }

    @Test
    void aWindowThatFailsFailsTheReadsThatNeedItAndLaterReadsFetchAgain() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = writeFile(cluster.client(), "/f", bytes(BLOCKS * B, 5));
            cluster.storage.delayMillis = 1;
            CreelNode node = get(cluster.client().lookup("/f"));
            DirectReader r = node.reader();
            int piece = 256;
            assertArrayEquals(Arrays.copyOfRange(data, 0, 8 * piece), readInOrder(r, 8 * piece, piece));
            cluster.storage.failReads = ErrorCode.STALE_BLOCK; // about the data: no other transport is tried
            ErrorCode direct = failure(node.read(0, ByteBuffer.allocate(1))).code(); // what a plain read fails with
            ByteBuffer buf = ByteBuffer.allocate(piece);
            CreelException failed = null;
            while (failed == null && r.position() < data.length) {
                long at = r.position();
                CompletableFuture<Integer> f = r.read(buf.clear());
                try {
                    get(f);
                    assertArrayEquals(Arrays.copyOfRange(data, (int) at, (int) at + piece), buf.array(),
                            "bytes fetched before the failure are still right");
                } catch (java.util.concurrent.ExecutionException e) {
                    failed = failure(f);
                }
            }
            assertTrue(failed != null, "a window fetched while the server fails fails its read");
            assertEquals(direct, failed.code(), "the same failure as a read straight from the server: " + failed);
            assertTrue(failed.getMessage().startsWith("/f: reading block "), failed.getMessage());
            cluster.storage.failReads = null;
            long rest = r.position();
            assertArrayEquals(Arrays.copyOfRange(data, (int) rest, data.length),
                    readInOrder(r, (int) (data.length - rest), piece), "the reads after it fetch again");
        }
    }

    @Test
    void readsIssuedWithoutWaitingEachGetTheirOwnRange() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = writeFile(cluster.client(), "/f", bytes(BLOCKS * B, 6));
            cluster.storage.delayMillis = 1;
            DirectReader r = get(cluster.client().lookup("/f")).reader();
            int piece = 1000;
            assertArrayEquals(Arrays.copyOfRange(data, 0, 3 * piece), readInOrder(r, 3 * piece, piece));
            List<ByteBuffer> bufs = new ArrayList<>();
            List<CompletableFuture<Integer>> reads = new ArrayList<>();
            for (int i = 3; i * piece < data.length; i++) {
                ByteBuffer b = ByteBuffer.allocate(piece);
                bufs.add(b);
                reads.add(r.read(b));
            }
            for (int k = 0; k < reads.size(); k++) {
                int at = (k + 3) * piece;
                int n = Math.min(piece, data.length - at);
                assertEquals(n, get(reads.get(k)));
                assertEquals(n, bufs.get(k).position(), "each buffer moved once, by its bytes");
                assertArrayEquals(Arrays.copyOfRange(data, at, at + n), Arrays.copyOf(bufs.get(k).array(), n),
                        "read " + k);
            }
        }
    }

    @Test
    void windowsThatArriveBeforeTheReadIsCountedAreNotRetiredUnderIt() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            byte[] data = writeFile(cluster.client(), "/f", bytes(BLOCKS * B, 7));
            CreelClient c = cluster.client();
            CreelNode node = get(c.lookup("/f"));
            cluster.storage.synchronous = true; // a window's read completes inside the call that fetches it
            ReadAhead ahead = new ReadAhead(node.ref(), c.blockIo(), data.length, 8 * B, B);
            ByteBuffer dst = ByteBuffer.allocate(1000);
            get(ahead.read(B - 96, dst)); // spans windows 0 and 1, both fetched by this very read
            assertEquals(0, dst.position(), "the read-ahead does not move the buffer; the reader does");
            assertArrayEquals(Arrays.copyOfRange(data, B - 96, B - 96 + 1000), dst.array());
            dst.clear();
            get(ahead.read(B - 96 + 1000, dst));
            assertArrayEquals(Arrays.copyOfRange(data, B - 96 + 1000, B - 96 + 2000), dst.array());
        }
    }

    @Test
    void windowsAreBlockAlignedPowersOfTwo() {
        assertEquals(1 << 20, ReadAhead.windowSize(4 << 20, 1 << 20));
        assertEquals(512 << 10, ReadAhead.windowSize(1 << 20, 1 << 20));
        assertEquals(4096, ReadAhead.windowSize(1 << 20, 4096));
        assertEquals(4096, ReadAhead.windowSize(100, 1 << 20), "at least a page");
        assertEquals(64 << 10, ReadAhead.windowSize(4 << 20, 3 * (64 << 10)), "divides an odd block size");
    }
}
