package io.creel.storage.format;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The header and tag table a storage server keeps in a memory-mapped file. Same-host clients map
 * the same file, find the server's token in the header (proof that they see the server's file, not
 * a namesake on another machine), and check block tags exactly as the server does.
 *
 * <pre>
 *   0  int64 magic "CREELTAG"
 *   8  int32 format version
 *  12  int32 block size
 *  16  int64 block count
 *  24  int64 token (random per server start)
 *  32  int64 data offset (where block 0 starts, in the data file)
 *  40  int64 tag offset (= {@link #TAG_OFFSET})
 *  48  liveness words, 32 bytes, kept by the serving server ({@link ServerLiveness})
 *  4096    tag table: one int64 per block
 * </pre>
 */
public final class TagFile {
    public static final long MAGIC = 0x4352454c54414731L; // "CRELTAG1"
    public static final int VERSION = 1;
    public static final long TAG_OFFSET = 4096;

    private TagFile() {
    }

    /** Bytes the header plus tag table occupy, rounded up to a page. */
    public static long size(long blockCount) {
        return roundUp(TAG_OFFSET + blockCount * 8, 4096);
    }

    public static long roundUp(long v, long align) {
        return (v + align - 1) / align * align;
    }

    /** Writes a fresh header (all tags zero: no block claimed) into an open read-write channel. */
    public static void initialize(FileChannel ch, int blockSize, long blockCount, long token, long dataOffset)
            throws IOException {
        MappedByteBuffer h = ch.map(FileChannel.MapMode.READ_WRITE, 0, TAG_OFFSET);
        h.order(ByteOrder.BIG_ENDIAN);
        h.putLong(0, MAGIC).putInt(8, VERSION).putInt(12, blockSize).putLong(16, blockCount).putLong(24, token)
                .putLong(32, dataOffset).putLong(40, TAG_OFFSET);
        h.force();
    }

    /** The header of an existing tag file. */
    public record Header(int blockSize, long blockCount, long token, long dataOffset) {
    }

    /** Reads and checks the header of {@code file}; an unreadable or foreign file is an error. */
    public static Header readHeader(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() < TAG_OFFSET) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, file + " is not a Creel tag file (too short)");
            }
            java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(48);
            while (h.hasRemaining() && ch.read(h, h.position()) > 0) {
                // keep reading until the header is complete
            }
            h.flip();
            if (h.remaining() < 48 || h.getLong(0) != MAGIC || h.getInt(8) != VERSION) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, file + " is not a Creel tag file (bad magic)");
            }
            return new Header(h.getInt(12), h.getLong(16), h.getLong(24), h.getLong(32));
        }
    }
}
