package io.creel.storage.nvmf.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The first sector of a namespace a Creel storage server uses: which volume it is (the server's
 * token) and its layout. The server writes it at start; a client reads it before it reads or writes
 * the namespace directly, and goes through the server instead when the token is not the server's (the
 * address it reached leads to another namespace than the server's, or another server took the
 * namespace over).
 *
 * <pre>
 *   0  int64  magic "CRNVVOL1"
 *   8  int32  format version (1)
 *  12  int32  sector size
 *  16  int32  block size
 *  20  int32  zero
 *  24  int64  block count
 *  32  int64  first tag sector
 *  40  int64  first data sector
 *  48  int64  token
 *  56  int64  written at (wall-clock milliseconds)
 *  64  int32  CRC32C of bytes 0..63
 * </pre>
 */
public record VolumeHeader(VolumeLayout layout, long token, long writtenAtMillis) {
    public static final long MAGIC = 0x43524e56564f4c31L; // "CRNVVOL1"
    public static final int VERSION = 1;
    static final int CRC_AT = 64;
    static final int USED_BYTES = 68;

    /** Fills {@code sector} (its whole capacity) with this header. */
    public ByteBuffer encode(ByteBuffer sector) {
        ByteBuffer b = sector.duplicate().order(ByteOrder.BIG_ENDIAN).clear();
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0);
        }
        b.putLong(0, MAGIC).putInt(8, VERSION).putInt(12, layout.sectorSize()).putInt(16, layout.blockSize())
                .putLong(24, layout.blockCount()).putLong(32, layout.tagSector()).putLong(40, layout.dataSector())
                .putLong(48, token).putLong(56, writtenAtMillis);
        b.putInt(CRC_AT, crc(b));
        return sector;
    }

    /**
     * The header in {@code sector} (from its position), or empty when the sector holds none (never
     * used by Creel, another format version, damaged).
     */
    public static Optional<VolumeHeader> decode(ByteBuffer sector) {
        if (sector.remaining() < USED_BYTES) {
            return Optional.empty();
        }
        ByteBuffer b = sector.slice(sector.position(), USED_BYTES).order(ByteOrder.BIG_ENDIAN);
        if (b.getLong(0) != MAGIC || b.getInt(8) != VERSION || b.getInt(CRC_AT) != crc(b)) {
            return Optional.empty();
        }
        try {
            VolumeLayout layout = new VolumeLayout(b.getInt(12), b.getInt(16), b.getLong(24), b.getLong(32),
                    b.getLong(40));
            return Optional.of(new VolumeHeader(layout, b.getLong(48), b.getLong(56)));
        } catch (IllegalArgumentException inconsistent) {
            return Optional.empty();
        }
    }

    private static int crc(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b.slice(0, CRC_AT));
        return (int) c.getValue();
    }
}
