package io.creel.spark.shuffle.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class MapOutputIndexTest {
    private static final long[] LENGTHS = {10, 0, 25, 0, 0, 7};
    private static final long DATA = 42;

    private static final int[] CHECKSUMS = {11, 0, 33, 0, 0, 77};

    private static ByteBuffer encoded() {
        return MapOutputIndex.of(new long[][] {LENGTHS}, new int[][] {CHECKSUMS}).encode();
    }

    @Test
    void offsetsLengthsAndChecksumsSurviveARoundTrip() {
        ByteBuffer b = encoded();
        assertEquals(MapOutputIndex.encodedSize(6, 1), b.remaining());
        MapOutputIndex idx = MapOutputIndex.decode(b, 6, DATA + b.remaining(), "/f");
        assertEquals(6, idx.partitions());
        assertEquals(1, idx.runs());
        assertEquals(DATA, idx.dataLength());
        long[] offsets = {0, 10, 10, 35, 35, 35};
        for (int p = 0; p < 6; p++) {
            assertEquals(LENGTHS[p], idx.length(0, p), "length of " + p);
            assertEquals(offsets[p], idx.offset(0, p), "offset of " + p);
            assertEquals(CHECKSUMS[p], idx.checksum(0, p), "checksum of " + p);
        }
    }

    @Test
    void severalRunsFollowOneAnotherAndTheirPiecesAddUpPerPartition() {
        long[][] lengths = {{5, 0, 3}, {0, 4, 6}};
        MapOutputIndex idx = MapOutputIndex.of(lengths, new int[][] {{1, 2, 3}, {4, 5, 6}});
        ByteBuffer b = idx.encode();
        assertEquals(MapOutputIndex.encodedSize(3, 2), b.remaining());
        assertEquals(2, MapOutputIndex.runsOf(b, 3, "/f"));
        MapOutputIndex back = MapOutputIndex.decode(b, 3, 18 + b.remaining(), "/f");
        assertEquals(2, back.runs());
        assertEquals(8, back.offset(1, 0), "run 1 starts where run 0 ends");
        assertEquals(12, back.offset(1, 2));
        assertEquals(18, back.end(1, 3));
        assertEquals(9, back.partitionLength(2));
        assertEquals(5, back.checksum(1, 1));
    }

    @Test
    void aFileWithAnotherPartitionCountIsRejected() {
        ByteBuffer b = encoded();
        CorruptMapOutputException e = assertThrows(CorruptMapOutputException.class,
                () -> MapOutputIndex.decode(b.slice(8, b.remaining() - 8), 5, DATA + b.remaining() - 8, "/f"));
        assertTrue(e.getMessage().contains("5 partitions") || e.getMessage().contains("6 partitions"), e.getMessage());
    }

    @Test
    void aFlippedByteFailsTheChecksum() {
        ByteBuffer b = encoded();
        b.put(9, (byte) (b.get(9) ^ 1));
        CorruptMapOutputException e = assertThrows(CorruptMapOutputException.class,
                () -> MapOutputIndex.decode(b, 6, DATA + b.remaining(), "/f"));
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void bytesThatAreNotAnIndexAreRejectedByTheirMagic() {
        ByteBuffer junk = ByteBuffer.allocate(MapOutputIndex.encodedSize(6, 1));
        CorruptMapOutputException e = assertThrows(CorruptMapOutputException.class,
                () -> MapOutputIndex.decode(junk, 6, 1000, "/x/map-0-1"));
        assertTrue(e.getMessage().startsWith("/x/map-0-1: not a map output file"), e.getMessage());
    }

    @Test
    void anIndexThatDoesNotMatchTheFileLengthIsRejected() {
        ByteBuffer b = encoded();
        CorruptMapOutputException e = assertThrows(CorruptMapOutputException.class,
                () -> MapOutputIndex.decode(b, 6, DATA + b.remaining() + 1, "/f"));
        assertTrue(e.getMessage().contains("describes 42 bytes of data but the file holds 43"), e.getMessage());
    }

    @Test
    void anIndexOfTheWrongSizeIsRejected() {
        ByteBuffer b = encoded();
        assertThrows(CorruptMapOutputException.class, () -> MapOutputIndex.decode(b.slice(0, 20), 6, 100, "/f"));
    }

    @Test
    void negativeLengthsAreABug() {
        assertThrows(IllegalArgumentException.class,
                () -> MapOutputIndex.of(new long[][] {{1, -1}}, new int[][] {{0, 0}}));
    }

    @Test
    void pathsFollowTheDocumentedLayout() {
        String app = ShufflePaths.appDir("/spark-shuffle", "local-123");
        assertEquals("/spark-shuffle/local-123", app);
        assertEquals("/spark-shuffle/local-123/shuffle-4", ShufflePaths.shuffleDir(app, 4));
        assertEquals("/spark-shuffle/local-123/shuffle-4/map-2-77",
                ShufflePaths.mapOutput(ShufflePaths.shuffleDir(app, 4), 2, 77));
        assertEquals("/spark-shuffle/_live", ShufflePaths.liveTable("/spark-shuffle"));
        assertThrows(RuntimeException.class, () -> ShufflePaths.appDir("/spark-shuffle", "a/b"));
    }
}
