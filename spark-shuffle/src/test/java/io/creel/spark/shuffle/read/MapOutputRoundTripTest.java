package io.creel.spark.shuffle.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.namespace.NodeType;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.shuffle.format.MapOutputIndex;
import io.creel.spark.shuffle.write.MapOutputFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.spark.executor.TempShuffleReadMetrics;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The map output File format end to end without Spark's scheduler: what a map output writer
 * commits, the catalog opens and the fetcher reads back, byte for byte; and the failure paths.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MapOutputRoundTripTest {
    private static final Duration T = Duration.ofSeconds(30);
    private static final BlockManagerId EXEC = BlockManagerId.apply("exec-1", "127.0.0.1", 7000, scala.Option.empty());
    private static CreelTestCluster creel;
    private static CreelClient client;
    private static int next;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(64L << 20, 128L << 20);
        client = CreelClient.connect(creel.cluster().clientConf());
        Futures.await(client.create("/rt", NodeType.DIRECTORY), T, "mkdir");
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (creel != null) {
            creel.close();
        }
    }

    private static String path() {
        return "/rt/map-0-" + (next++);
    }

    private static MapOutputFile writer(String path, int partitions) {
        return new MapOutputFile(client, path, partitions, CreateOptions.defaults(), T);
    }

    /** Writes each of {@code runs} as a run ({@code run[p]} as partition p, null = skipped) and commits. */
    private static long[] write(String path, byte[][]... runs) throws IOException {
        MapOutputFile w = writer(path, runs[0].length);
        for (byte[][] data : runs) {
            w.beginRun();
            for (int p = 0; p < data.length; p++) {
                if (data[p] == null) {
                    continue;
                }
                try (OutputStream out = w.piece(p)) {
                    out.write(data[p], 0, data[p].length / 2);
                    for (int i = data[p].length / 2; i < data[p].length; i++) {
                        out.write(data[p][i]);
                    }
                }
            }
            w.endRun();
        }
        return w.commit();
    }

    private static byte[][] randomPartitions(int partitions, int maxSize, long seed) {
        Random r = new Random(seed);
        byte[][] data = new byte[partitions][];
        for (int p = 0; p < partitions; p++) {
            if (r.nextInt(4) == 0) {
                continue;
            }
            data[p] = new byte[r.nextInt(maxSize)];
            r.nextBytes(data[p]);
        }
        return data;
    }

    private static PartitionFetcher fetcher(List<FetchRequest> requests, int partitions, long inFlight, int chunk) {
        return new PartitionFetcher(9, partitions, requests, new MapOutputCatalog(client, 1 << 20, T), inFlight, chunk,
                new TempShuffleReadMetrics());
    }

    private static byte[] drain(FetchedPartition p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.stream().transferTo(out);
        return out.toByteArray();
    }

    @Test
    void whatTheWriterCommitsTheFetcherReadsBackPartitionByPartition() throws Exception {
        int partitions = 12;
        List<byte[][]> maps = new ArrayList<>();
        List<FetchRequest> requests = new ArrayList<>();
        for (int m = 0; m < 5; m++) {
            byte[][] data = randomPartitions(partitions, 150_000, m);
            String path = path();
            long[] lengths = write(path, data);
            for (int p = 0; p < partitions; p++) {
                assertEquals(data[p] == null ? 0 : data[p].length, lengths[p], "length of partition " + p);
            }
            maps.add(data);
            requests.add(new FetchRequest(100 + m, m, EXEC, path, 3, 10));
        }
        // Chunks of 64 KiB and a 128 KiB budget: small partitions are read together, large ones streamed.
        PartitionFetcher f = fetcher(requests, partitions, 128 << 10, 64 << 10);
        for (int m = 0; m < 5; m++) {
            for (int p = 3; p < 10; p++) {
                byte[] expected = maps.get(m)[p];
                if (expected == null || expected.length == 0) {
                    continue;
                }
                FetchedPartition got = f.next();
                assertEquals(m, got.request().mapIndex());
                assertEquals(p, got.partition());
                assertArrayEquals(expected, drain(got), "map " + m + " partition " + p);
            }
        }
        assertNull(f.next());
    }

    @Test
    void aMapThatFlushedSeveralRunsIsReadBackAsEveryRunsPieceOfEachPartition() throws Exception {
        int partitions = 6;
        byte[][] first = randomPartitions(partitions, 100_000, 41);
        byte[][] second = randomPartitions(partitions, 100_000, 42);
        byte[][] third = randomPartitions(partitions, 100_000, 43);
        String path = path();
        long[] lengths = write(path, first, second, third);
        for (int p = 0; p < partitions; p++) {
            assertEquals(len(first[p]) + len(second[p]) + len(third[p]), lengths[p], "length of partition " + p);
        }
        PartitionFetcher f = fetcher(List.of(new FetchRequest(7, 0, EXEC, path, 1, 5)), partitions, 128 << 10, 64 << 10);
        for (byte[][] run : List.of(first, second, third)) {
            for (int p = 1; p < 5; p++) {
                if (len(run[p]) == 0) {
                    continue;
                }
                FetchedPartition got = f.next();
                assertEquals(p, got.partition());
                assertArrayEquals(run[p], drain(got), "partition " + p);
            }
        }
        assertNull(f.next());
    }

    private static int len(byte[] b) {
        return b == null ? 0 : b.length;
    }

    @Test
    void theCommittedFileIsTheDataFollowedByTheIndex() throws Exception {
        String path = path();
        byte[][] data = {new byte[100], null, new byte[7]};
        write(path, data);
        long length = Futures.await(client.lookup(path), T, "lookup").length();
        assertEquals(107 + MapOutputIndex.encodedSize(3, 1), length);
        MapOutput out = new MapOutputCatalog(client, 1 << 20, T).open(1, path, 3).get(30, TimeUnit.SECONDS);
        assertEquals(107, out.index().dataLength());
        assertEquals(0, out.index().length(0, 1));
    }

    /** A map output File whose index claims checksums other than its bytes' (as a flipped stored byte would make). */
    private static String corruptedMapOutput(int pieceBytes) throws IOException {
        String path = path();
        byte[] data = new byte[pieceBytes];
        new Random(5).nextBytes(data);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(data);
        MapOutputIndex index = MapOutputIndex.of(new long[][] {{0, pieceBytes}},
                new int[][] {{0, (int) crc.getValue() ^ 0x10}});
        try (OutputStream out = Futures.await(client.create(path, NodeType.FILE), T, "create").outputStream()) {
            out.write(data);
            java.nio.ByteBuffer b = index.encode();
            out.write(b.array(), 0, b.remaining());
        }
        return path;
    }

    @Test
    void aPieceWhoseChecksumDoesNotMatchIsAFetchFailureNamingMapAndChecksum() throws Exception {
        String path = corruptedMapOutput(3000);
        PartitionFetcher f = fetcher(List.of(new FetchRequest(77, 4, EXEC, path, 0, 2)), 2, 1 << 20, 1 << 20);
        FetchFailedException e = assertThrows(FetchFailedException.class, f::next);
        assertEquals(4, ((org.apache.spark.FetchFailed) e.toTaskFailedReason()).mapIndex());
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
        assertTrue(e.getMessage().contains("map 4"), e.getMessage());
    }

    @Test
    void aLargePieceReadInChunksFailsTheFetchAtItsEndOrWhenItDoesNotDeserialize() throws Exception {
        String path = corruptedMapOutput(300_000);
        PartitionFetcher f = fetcher(List.of(new FetchRequest(78, 5, EXEC, path, 0, 2)), 2, 128 << 10, 64 << 10);
        FetchedPartition p = f.next(); // handed out before its last chunk is read
        FetchFailedException atEnd = assertThrows(FetchFailedException.class, () -> drain(p));
        assertTrue(atEnd.getMessage().contains("checksum mismatch"), atEnd.getMessage());

        PartitionFetcher again = fetcher(List.of(new FetchRequest(78, 5, EXEC, path, 0, 2)), 2, 128 << 10, 64 << 10);
        PartitionFetcher.ChunkedStream early = (PartitionFetcher.ChunkedStream) again.next().stream();
        early.read(new byte[10], 0, 10);
        FetchFailedException verified = assertThrows(FetchFailedException.class, early::verifyRest);
        assertTrue(verified.getMessage().contains("checksum mismatch"), verified.getMessage());
    }

    @Test
    void aMapWithNoOutputCreatesNoFile() throws Exception {
        String path = path();
        long[] lengths = writer(path, 4).commit();
        assertArrayEquals(new long[4], lengths);
        assertThrows(java.util.concurrent.ExecutionException.class, () -> client.lookup(path).get(30, TimeUnit.SECONDS));
    }

    @Test
    void partitionsMustComeInIncreasingOrderInsideARunAndACommitHappensOnce() throws Exception {
        MapOutputFile w = writer(path(), 4);
        assertThrows(IllegalStateException.class, () -> w.piece(0), "a piece outside a run");
        w.beginRun();
        w.piece(2).close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.piece(1));
        assertTrue(e.getMessage().contains("increasing order"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> w.piece(4));
        w.endRun();
        w.beginRun();
        w.piece(1).close(); // a new run starts from the first partition again
        w.endRun();
        w.commit();
        assertThrows(IOException.class, w::commit);
        assertThrows(IOException.class, w::beginRun);
    }

    @Test
    void aFileWhoseWriteFailedRefusesToCommitSoNoMapReportsMissingBytesAsEmpty() throws Exception {
        // The map output cannot be created (its shuffle directory does not exist): the write fails, and
        // a commit after it must fail too, never report the partition as written with zero bytes.
        MapOutputFile w = writer("/no-such-shuffle/map-0-1", 2);
        w.beginRun();
        IOException write = assertThrows(IOException.class, () -> w.piece(0).write(new byte[100]));
        assertTrue(write.getMessage().contains("cannot create the map output"), write.getMessage());
        IOException commit = assertThrows(IOException.class, w::commit);
        assertTrue(commit.getMessage().contains("failed"), commit.getMessage());
        assertFalse(exists("/no-such-shuffle/map-0-1"));
    }

    @Test
    void anAbortedFileIsDeleted() throws Exception {
        String path = path();
        MapOutputFile w = writer(path, 3);
        w.beginRun();
        try (OutputStream out = w.piece(0)) {
            out.write(new byte[200_000]);
        }
        assertTrue(exists(path), "the file exists while being written");
        w.abort();
        assertFalse(exists(path));
    }

    private static boolean exists(String path) throws Exception {
        try {
            client.lookup(path).get(30, TimeUnit.SECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        }
    }

    @Test
    void aMissingMapOutputIsAFetchFailureNamingTheMapAndTheExecutor() {
        FetchRequest r = new FetchRequest(4242, 3, EXEC, "/rt/map-3-4242", 0, 2);
        PartitionFetcher f = fetcher(List.of(r), 2, 1 << 20, 1 << 20);
        FetchFailedException e = assertThrows(FetchFailedException.class, f::next);
        org.apache.spark.FetchFailed reason = (org.apache.spark.FetchFailed) e.toTaskFailedReason();
        assertEquals(EXEC, reason.bmAddress());
        assertEquals(4242, reason.mapId());
        assertEquals(3, reason.mapIndex());
        assertTrue(e.getMessage().contains("/rt/map-3-4242"), e.getMessage());
    }

    @Test
    void aFileThatIsNotAMapOutputIsAFetchFailure() throws Exception {
        String path = path();
        try (OutputStream out = Futures.await(client.create(path, NodeType.FILE), T, "create").outputStream()) {
            out.write(new byte[5000]);
        }
        PartitionFetcher f = fetcher(List.of(new FetchRequest(1, 0, EXEC, path, 0, 3)), 3, 1 << 20, 1 << 20);
        FetchFailedException e = assertThrows(FetchFailedException.class, f::next);
        assertTrue(e.getMessage().contains("not a map output file"), e.getMessage());
    }
}
