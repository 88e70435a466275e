package io.creel.client;

import static io.creel.client.TestData.bytes;
import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.client.fake.FakeNamenode;
import io.creel.client.fake.FakeStorage;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading and writing across blocks: overlapped lookups, the block cache, write splitting, errors. */
class BlockIoTest {
    private static final int B = FakeCluster.BLOCK;

    private static byte[] writeFile(CreelClient c, String path, byte[] data) throws Exception {
        CreelNode f = get(c.create(path, NodeType.FILE));
        get(f.writer().write(ByteBuffer.wrap(data)));
        get(f.writer().close());
        return data;
    }

    private static byte[] readAll(CreelNode node, int chunk) throws Exception {
        DirectReader r = node.reader();
        ByteBuffer all = ByteBuffer.allocate((int) node.length());
        ByteBuffer buf = ByteBuffer.allocate(chunk);
        while (get(r.read(buf.clear())) > 0) {
            all.put(buf.flip());
        }
        return all.array();
    }

    @Test
    void sequentialReadsOverlapTheNextBlockLookupWithTheCurrentTransfer() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            int n = 8;
            byte[] data = writeFile(cluster.client(), "/big", bytes(n * B, 1));
            FakeNamenode nn = cluster.namenode();
            long delay = 100;
            nn.mapDelayMillis = delay;
            cluster.storage.delayMillis = delay;
            CreelClient fresh = cluster.client(); // empty block cache
            CreelNode node = get(fresh.lookup("/big"));
            int mapsBefore = nn.maps.get();
            byte[] read = readAll(node, B); // one block per read, each waited for
            assertArrayEquals(data, read);
            assertEquals(0, nn.maps.get() - mapsBefore, "no block was looked up alone");
            assertEquals(1, nn.locates.get(), "block 0 came with the lookup, blocks 1.." + (n - 1) + " with one LOCATE");
            assertEquals(1, nn.mapsDuringReads.get(), "the LOCATE arrived while block 0 was being read");
        }
    }

    @Test
    void theBlockCacheAnswersRepeatedReadsWithoutMapRequests() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            byte[] data = writeFile(c, "/f", bytes(5 * B + 17, 2));
            CreelClient reader = cluster.client();
            CreelNode node = get(reader.lookup("/f"));
            FakeNamenode nn = cluster.namenode();
            int before = nn.maps.get() + nn.locates.get();
            assertArrayEquals(data, readAll(node, 3 * B));
            int afterFirst = nn.maps.get() + nn.locates.get();
            assertEquals(1, afterFirst - before, "blocks 1..5 looked up once, together");
            assertArrayEquals(data, readAll(node, 1000));
            assertArrayEquals(data, readAll(get(reader.lookup("/f")), 7 * B));
            assertEquals(afterFirst, nn.maps.get() + nn.locates.get(), "no lookup for blocks already cached");
        }
    }

    @Test
    void blockLocationsOfAWholeFileAreOneLocateAfterTheLookup() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            writeFile(cluster.client(), "/f", bytes(6 * B + 5, 5));
            FakeNamenode nn = cluster.namenode();
            CreelClient fresh = cluster.client();
            CreelNode node = get(fresh.lookup("/f"));
            int maps = nn.maps.get();
            int locates = nn.locates.get();
            java.util.List<io.creel.common.protocol.BlockLocation> where = get(fresh.blockLocations(node, 0, node.length()));
            assertEquals(7, where.size());
            for (int i = 0; i < where.size(); i++) {
                assertEquals(i, where.get(i).blockIndex(), "in block order");
            }
            assertEquals(maps, nn.maps.get(), "no block was looked up alone");
            assertEquals(locates + 1, nn.locates.get(), "block 0 came with the lookup, the other six with one LOCATE");
        }
    }

    @Test
    void theBlockCacheIsBounded() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            writeFile(cluster.client(), "/f", bytes(40 * B, 3));
            cluster.settings().put("creel.client.block.cache.size", "16");
            CreelClient small = cluster.client();
            int before = cluster.namenode().locates.get();
            assertArrayEquals(bytes(40 * B, 3), readAll(get(small.lookup("/f")), 4 * B));
            assertTrue(small.blockCache().size() <= 16, "cache holds " + small.blockCache().size());
            assertTrue(cluster.namenode().locates.get() - before >= 39 / 8,
                    "a run is at most half the cache (8 blocks): 39 blocks need at least 5 LOCATEs");
        }
    }

    @Test
    void aWriteIsSplitAtBlockBoundariesOnePiecePerBlock() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            byte[] head = bytes(100, 4);
            byte[] body = bytes(3 * B + B / 2, 5);
            get(f.writer().write(ByteBuffer.wrap(head)));
            ByteBuffer src = ByteBuffer.wrap(body);
            get(f.writer().write(src));
            assertEquals(0, src.remaining(), "a completed write consumed its buffer");
            assertEquals(head.length + body.length, get(f.writer().close()).length());

            List<FakeStorage.Write> writes = cluster.storage.writes;
            assertEquals(1 + 4, writes.size(), "the head, then one piece per block the body touches");
            for (FakeStorage.Write w : writes) {
                assertTrue(w.offset() + w.length() <= B, "a BLOCK_WRITE stays inside its block: " + w);
            }
            List<Integer> pieces = writes.subList(1, 5).stream().map(FakeStorage.Write::length).sorted().toList();
            assertEquals(List.of(B / 2 + 100, B - 100, B, B), pieces, "pieces go out concurrently, in any order");
            byte[] expected = new byte[head.length + body.length];
            System.arraycopy(head, 0, expected, 0, head.length);
            System.arraycopy(body, 0, expected, head.length, body.length);
            assertArrayEquals(expected, readAll(get(c.lookup("/f")), 5 * B));
        }
    }

    @Test
    void blockLocationsNameOneLocationPerBlockOfTheRangeClippedToTheLength() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            writeFile(c, "/blocks", bytes(3 * B + 5, 9));
            CreelNode node = get(c.lookup("/blocks"));
            List<io.creel.common.protocol.BlockLocation> all = get(c.blockLocations(node, 0, Long.MAX_VALUE / 2));
            assertEquals(4, all.size());
            for (int i = 0; i < all.size(); i++) {
                assertEquals(i, all.get(i).blockIndex());
                assertEquals(node.info().id(), all.get(i).nodeId());
            }
            List<io.creel.common.protocol.BlockLocation> middle = get(c.blockLocations(node, B - 1, 2));
            assertEquals(List.of(0L, 1L), middle.stream().map(io.creel.common.protocol.BlockLocation::blockIndex)
                    .toList(), "a range straddling a boundary touches both blocks");
            assertTrue(get(c.blockLocations(node, 4L * B, 10)).isEmpty(), "nothing beyond the length");
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(c.blockLocations(node, -1, 10)).code());
        }
    }

    @Test
    void syncPublishesWhatWasWrittenAndAppendContinuesTheFile() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            byte[] a = bytes(B + 10, 6);
            f.writer().write(ByteBuffer.wrap(a)); // not waited for: sync waits for it
            assertEquals(a.length, get(f.writer().sync()).length());
            assertEquals(a.length, get(c.lookup("/f")).length(), "readers see the synced length");
            get(f.writer().close());
            CreelNode again = get(c.openForAppend("/f"));
            byte[] b = bytes(2 * B, 7);
            try (OutputStream out = again.outputStream()) {
                out.write(b);
            }
            byte[] all = new byte[a.length + b.length];
            System.arraycopy(a, 0, all, 0, a.length);
            System.arraycopy(b, 0, all, a.length, b.length);
            try (InputStream in = get(c.lookup("/f")).inputStream()) {
                assertArrayEquals(all, in.readAllBytes());
            }
        }
    }

    @Test
    void aFailedWriteFailsTheNextSyncAndClose() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            // A refusal no other transport would change (an INTERNAL error would move the client to TCP).
            cluster.storage.failWrites = ErrorCode.INVALID_ARGUMENT;
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().write(ByteBuffer.wrap(bytes(10, 8)))).code());
            cluster.storage.failWrites = null;
            f.writer().write(ByteBuffer.wrap(bytes(10, 8)));
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().sync()).code());
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().close()).code());
            assertEquals(0, get(c.lookup("/f")).length(), "nothing was published");
            assertTrue(failure(f.writer().close()).getMessage().startsWith("/f: "), "errors name the path");
        }
    }

    @Test
    void readErrorsReachFuturesAndStreamsWithTheirCode() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            writeFile(c, "/f", bytes(2 * B, 9));
            CreelNode node = get(c.lookup("/f"));
            cluster.storage.failReads = ErrorCode.STALE_BLOCK;
            assertEquals(ErrorCode.STALE_BLOCK, failure(node.reader().read(ByteBuffer.allocate(10))).code());
            try (InputStream in = node.inputStream()) {
                CreelIOException e = assertThrows(CreelIOException.class, in::read);
                assertEquals(ErrorCode.STALE_BLOCK, e.code());
                assertTrue(e.getMessage().contains("injected read failure"), e.getMessage());
            }
        }
    }

    @Test
    void aStaleCachedLocationIsLookedUpAgain() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            byte[] data = writeFile(c, "/f", bytes(B, 10));
            CreelNode node = get(c.lookup("/f"));
            assertArrayEquals(data, readAll(node, B));
            // The block is reallocated under the cached location: the tag no longer matches.
            cluster.storage.retag(0);
            assertEquals(ErrorCode.STALE_BLOCK, failure(node.reader().read(ByteBuffer.allocate(B))).code(),
                    "a stale block is an error, never foreign bytes");
        }
    }

    @Test
    void readersStopAtTheLengthTheyWereOpenedWith() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            writeFile(c, "/f", bytes(100, 11));
            CreelNode node = get(c.lookup("/f"));
            DirectReader r = node.reader();
            assertEquals(100, get(r.read(ByteBuffer.allocate(1000))));
            assertEquals(-1, get(r.read(ByteBuffer.allocate(1000))));
            assertEquals(-1, get(node.read(100, ByteBuffer.allocate(1))));
            assertEquals(40, get(node.read(60, ByteBuffer.allocate(1000))));
        }
    }

    @Test
    void theInputStreamSeeksAndSkipsAcrossBuffers() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            byte[] data = writeFile(c, "/f", bytes(5 * B + 3, 12));
            try (io.creel.client.io.NodeInputStream in = get(c.lookup("/f")).inputStream()) {
                byte[] two = new byte[2];
                in.seek(3 * B + 1);
                assertEquals(2, in.read(two));
                assertArrayEquals(java.util.Arrays.copyOfRange(data, 3 * B + 1, 3 * B + 3), two);
                in.seek(10);
                assertEquals(data[10] & 0xff, in.read());
                assertEquals(B, in.skip(B));
                assertEquals(data[B + 11] & 0xff, in.read());
                in.seek(data.length);
                assertEquals(-1, in.read());
                assertThrows(java.io.IOException.class, () -> in.seek(data.length + 1));
            }
        }
    }
}
