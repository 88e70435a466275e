package io.creel.spark.shuffle.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Where each reduce partition lies in a map output file, and the checksum of every piece.
 *
 * <p>A map task writes its output in one or more <em>runs</em>: a run is what one flush of the
 * task's buffer wrote, every partition's bytes back to back in partition order. A task that never
 * ran short of memory writes one run; one that did writes a run per flush, so partition {@code p}
 * of the map is the concatenation of its piece in every run. The file is the runs in order,
 * followed by this index:
 *
 * <pre>
 *  int64 x (S x R + 1)  offsets: piece (run s, partition p) is [o[s R + p], o[s R + p + 1]); o[0] = 0
 *  int32 x (S x R)      CRC32C of each piece's bytes as stored (after compression and encryption)
 *  int32                magic "CRLS"
 *  int32                format version (2)
 *  int32                R, the number of reduce partitions
 *  int32                S, the number of runs (at least 1)
 *  int32                CRC32C of every index byte before the magic
 * </pre>
 *
 * The index goes last because it is known only when the map task has written everything; a reader
 * finds it from the file's committed length ({@link #TRAILER} bytes tell how long it is).
 * Immutable.
 */
public final class MapOutputIndex {
    public static final int MAGIC = 0x43524C53;
    public static final int VERSION = 2;
    /** Bytes after the offsets and checksums. */
    public static final int TRAILER = 20;

    private final int partitions;
    private final long[] offsets;
    private final int[] checksums;

    private MapOutputIndex(int partitions, long[] offsets, int[] checksums) {
        this.partitions = partitions;
        this.offsets = offsets;
        this.checksums = checksums;
    }

    /**
     * The index of runs whose pieces have these lengths and checksums: {@code lengths[s][p]} and
     * {@code checksums[s][p]} for run {@code s} and partition {@code p}.
     */
    public static MapOutputIndex of(long[][] lengths, int[][] checksums) {
        if (lengths.length == 0 || lengths.length != checksums.length) {
            throw new IllegalArgumentException("a map output has at least one run, with a checksum per piece");
        }
        int partitions = lengths[0].length;
        long[] offsets = new long[lengths.length * partitions + 1];
        int[] crcs = new int[lengths.length * partitions];
        int i = 0;
        for (int s = 0; s < lengths.length; s++) {
            if (lengths[s].length != partitions || checksums[s].length != partitions) {
                throw new IllegalArgumentException("run " + s + " does not have " + partitions + " partitions");
            }
            for (int p = 0; p < partitions; p++, i++) {
                if (lengths[s][p] < 0) {
                    throw new IllegalArgumentException("run " + s + " partition " + p + " has a negative length "
                            + lengths[s][p]);
                }
                offsets[i + 1] = offsets[i] + lengths[s][p];
                crcs[i] = checksums[s][p];
            }
        }
        return new MapOutputIndex(partitions, offsets, crcs);
    }

    /** Bytes the index takes at the end of a file with {@code partitions} partitions in {@code runs} runs. */
    public static int encodedSize(int partitions, int runs) {
        long size = 8L * ((long) runs * partitions + 1) + 4L * runs * partitions + TRAILER;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(runs + " runs of " + partitions + " partitions make an index over 2 GiB");
        }
        return (int) size;
    }

    /** Number of reduce partitions. */
    public int partitions() {
        return partitions;
    }

    /** Number of runs (flushes of the map task's buffer). */
    public int runs() {
        return checksums.length / Math.max(1, partitions);
    }

    /** Bytes of partition data (everything before the index). */
    public long dataLength() {
        return offsets[offsets.length - 1];
    }

    /** Where partition {@code p}'s piece of run {@code s} starts. */
    public long offset(int s, int p) {
        return offsets[s * partitions + p];
    }

    /** Bytes of partition {@code p}'s piece of run {@code s}. */
    public long length(int s, int p) {
        int i = s * partitions + p;
        return offsets[i + 1] - offsets[i];
    }

    /** Where run {@code s}'s partitions {@code [first, end)} end (for {@code end == partitions}, where the run ends). */
    public long end(int s, int end) {
        return offsets[s * partitions + end];
    }

    /** The CRC32C of partition {@code p}'s piece of run {@code s}, as the map task computed it. */
    public int checksum(int s, int p) {
        return checksums[s * partitions + p];
    }

    /** Bytes of partition {@code p} over every run. */
    public long partitionLength(int p) {
        long sum = 0;
        for (int s = 0; s < runs(); s++) {
            sum += length(s, p);
        }
        return sum;
    }

    /** The index as it is stored, ready to read (position 0). */
    public ByteBuffer encode() {
        ByteBuffer out = ByteBuffer.allocate(encodedSize(partitions, runs()));
        for (long o : offsets) {
            out.putLong(o);
        }
        for (int c : checksums) {
            out.putInt(c);
        }
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt(MAGIC).putInt(VERSION).putInt(partitions).putInt(runs()).putInt((int) crc.getValue());
        return out.flip();
    }

    /**
     * The number of runs the index ending with {@code tail} describes, read from its trailer (the
     * last {@link #TRAILER} bytes of {@code tail}); the whole index is then
     * {@link #encodedSize}{@code (partitions, runs)} bytes.
     *
     * @throws CorruptMapOutputException if the trailer is not one of a map output of that many partitions
     */
    public static int runsOf(ByteBuffer tail, int partitions, String path) {
        if (tail.remaining() < TRAILER) {
            throw new CorruptMapOutputException(path + ": " + tail.remaining() + " bytes cannot hold an index trailer");
        }
        ByteBuffer t = tail.slice(tail.limit() - TRAILER, TRAILER);
        int magic = t.getInt();
        int version = t.getInt();
        int count = t.getInt();
        int runs = t.getInt();
        if (magic != MAGIC) {
            throw new CorruptMapOutputException(path + ": not a map output file (bad index magic 0x"
                    + Integer.toHexString(magic) + ")");
        }
        if (version != VERSION) {
            throw new CorruptMapOutputException(path + ": map output format version " + version
                    + " is not supported (this reader knows " + VERSION + ")");
        }
        if (count != partitions) {
            throw new CorruptMapOutputException(path + ": the index has " + count + " partitions, the shuffle "
                    + partitions);
        }
        if (runs < 1 || (long) runs * partitions > Integer.MAX_VALUE / 16) {
            throw new CorruptMapOutputException(path + ": the index claims " + runs + " runs");
        }
        return runs;
    }

    /**
     * Decodes the index at the end of a map output file of {@code fileLength} bytes: {@code in}
     * holds exactly its {@link #encodedSize} bytes.
     *
     * @throws CorruptMapOutputException if the bytes are not an index of that many partitions
     *                                   describing that file
     */
    public static MapOutputIndex decode(ByteBuffer in, int partitions, long fileLength, String path) {
        int runs = runsOf(in, partitions, path);
        int size = encodedSize(partitions, runs);
        if (in.remaining() != size) {
            throw new CorruptMapOutputException(path + ": expected an index of " + size + " bytes for " + runs
                    + " runs of " + partitions + " partitions, got " + in.remaining());
        }
        ByteBuffer b = in.slice();
        int pieces = runs * partitions;
        long[] offsets = new long[pieces + 1];
        for (int i = 0; i <= pieces; i++) {
            offsets[i] = b.getLong();
        }
        int[] checksums = new int[pieces];
        for (int i = 0; i < pieces; i++) {
            checksums[i] = b.getInt();
        }
        int storedCrc = b.getInt(size - 4);
        CRC32C crc = new CRC32C();
        crc.update(in.slice(in.position(), size - TRAILER));
        if ((int) crc.getValue() != storedCrc) {
            throw new CorruptMapOutputException(path + ": the index checksum does not match");
        }
        if (offsets[0] != 0) {
            throw new CorruptMapOutputException(path + ": the first partition starts at " + offsets[0]);
        }
        for (int i = 0; i < pieces; i++) {
            if (offsets[i + 1] < offsets[i]) {
                throw new CorruptMapOutputException(path + ": piece " + i + " ends before it starts");
            }
        }
        if (offsets[pieces] != fileLength - size) {
            throw new CorruptMapOutputException(path + ": the index describes " + offsets[pieces]
                    + " bytes of data but the file holds " + (fileLength - size));
        }
        return new MapOutputIndex(partitions, offsets, checksums);
    }
}
