package io.creel.spark.shuffle.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Where each reduce partition lies in a map output file. A map output file is the partitions'
 * bytes back to back, followed by this index:
 *
 * <pre>
 *  int64 x (R + 1)  offsets: partition p is [offset[p], offset[p + 1]); offset[0] = 0, offset[R] = data length
 *  int32            magic "CRLS"
 *  int32            format version (1)
 *  int32            R, the number of reduce partitions
 *  int32            CRC32C of the offset bytes
 * </pre>
 *
 * The index goes last because it is known only when the map task has written everything; a reader
 * finds it from the file's committed length. Immutable.
 */
public final class MapOutputIndex {
    public static final int MAGIC = 0x43524C53;
    public static final int VERSION = 1;
    /** Bytes after the offsets. */
    public static final int TRAILER = 16;

    private final long[] offsets;

    private MapOutputIndex(long[] offsets) {
        this.offsets = offsets;
    }

    /** The index of partitions with these lengths, in partition order. */
    public static MapOutputIndex ofLengths(long[] lengths) {
        long[] offsets = new long[lengths.length + 1];
        for (int p = 0; p < lengths.length; p++) {
            if (lengths[p] < 0) {
                throw new IllegalArgumentException("partition " + p + " has a negative length " + lengths[p]);
            }
            offsets[p + 1] = offsets[p] + lengths[p];
        }
        return new MapOutputIndex(offsets);
    }

    /** Bytes the index takes at the end of a file with {@code partitions} partitions. */
    public static int encodedSize(int partitions) {
        return 8 * (partitions + 1) + TRAILER;
    }

    /** Number of reduce partitions. */
    public int partitions() {
        return offsets.length - 1;
    }

    /** Bytes of partition data (everything before the index). */
    public long dataLength() {
        return offsets[offsets.length - 1];
    }

    /** Where partition {@code p} starts. */
    public long offset(int p) {
        return offsets[p];
    }

    /** Bytes of partition {@code p}. */
    public long length(int p) {
        return offsets[p + 1] - offsets[p];
    }

    /** The index as it is stored, ready to read (position 0). */
    public ByteBuffer encode() {
        ByteBuffer out = ByteBuffer.allocate(encodedSize(partitions()));
        for (long o : offsets) {
            out.putLong(o);
        }
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt(MAGIC).putInt(VERSION).putInt(partitions()).putInt((int) crc.getValue());
        return out.flip();
    }

    /**
     * Decodes the last {@link #encodedSize}{@code (partitions)} bytes of a map output file of
     * {@code fileLength} bytes.
     *
     * @throws CorruptMapOutputException if the bytes are not an index of that many partitions
     *                                   describing that file
     */
    public static MapOutputIndex decode(ByteBuffer in, int partitions, long fileLength, String path) {
        int size = encodedSize(partitions);
        if (in.remaining() != size) {
            throw new CorruptMapOutputException(path + ": expected an index of " + size + " bytes for " + partitions
                    + " partitions, got " + in.remaining());
        }
        ByteBuffer b = in.slice();
        long[] offsets = new long[partitions + 1];
        for (int i = 0; i <= partitions; i++) {
            offsets[i] = b.getLong();
        }
        int magic = b.getInt();
        int version = b.getInt();
        int count = b.getInt();
        int storedCrc = b.getInt();
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
        CRC32C crc = new CRC32C();
        ByteBuffer offsetBytes = in.slice(in.position(), 8 * (partitions + 1));
        crc.update(offsetBytes);
        if ((int) crc.getValue() != storedCrc) {
            throw new CorruptMapOutputException(path + ": the index checksum does not match");
        }
        if (offsets[0] != 0) {
            throw new CorruptMapOutputException(path + ": the first partition starts at " + offsets[0]);
        }
        for (int p = 0; p < partitions; p++) {
            if (offsets[p + 1] < offsets[p]) {
                throw new CorruptMapOutputException(path + ": partition " + p + " ends before it starts");
            }
        }
        if (offsets[partitions] != fileLength - size) {
            throw new CorruptMapOutputException(path + ": the index describes " + offsets[partitions]
                    + " bytes of data but the file holds " + (fileLength - size));
        }
        return new MapOutputIndex(offsets);
    }
}
