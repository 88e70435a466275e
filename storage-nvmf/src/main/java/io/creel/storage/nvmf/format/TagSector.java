package io.creel.storage.nvmf.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The sector that says which allocation owns a block: written whole, so a reader sees the old or
 * the new tag, never a mix.
 *
 * <pre>
 *   0  int64  magic "CRNVTAG1"
 *   8  int64  volume token (the storage server's, random per start)
 *  16  int64  block number
 *  24  int64  tag (the allocation's, from the namenode)
 *  32  int32  CRC32C of bytes 0..31
 *  36  ...    zero to the end of the sector
 * </pre>
 *
 * Big-endian. A sector that is not a tag of this volume and this block (zeros, another volume's tag,
 * leftovers of another use of the namespace) reads as tag 0: no allocation wrote it, and tags the
 * namenode hands out are never 0.
 */
public final class TagSector {
    public static final long MAGIC = 0x43524e5654414731L; // "CRNVTAG1"
    static final int CRC_AT = 32;
    static final int USED_BYTES = 36;

    private TagSector() {
    }

    /** What a tag sector holds, as far as one volume is concerned. */
    public record Reading(long tag, long foreignToken) {
        /** No tag of this volume: {@code foreignToken} is another volume's token, or 0 if none at all. */
        public boolean written() {
            return tag != 0;
        }

        /** Whether the sector holds a valid tag of another volume (a second server writing this namespace). */
        public boolean foreign() {
            return foreignToken != 0;
        }

        public String describe() {
            if (tag != 0) {
                return "tag " + Long.toUnsignedString(tag);
            }
            return foreignToken != 0 ? "a tag of another Creel volume (token " + Long.toHexString(foreignToken) + ")"
                    : "no tag";
        }
    }

    /** Fills {@code sector} (its whole capacity, one sector) with the tag of {@code block}. */
    public static ByteBuffer encode(ByteBuffer sector, long token, long block, long tag) {
        ByteBuffer b = sector.duplicate().order(ByteOrder.BIG_ENDIAN).clear();
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0);
        }
        b.putLong(0, MAGIC).putLong(8, token).putLong(16, block).putLong(24, tag);
        b.putInt(CRC_AT, crc(b));
        return sector;
    }

    /** Reads the sector at {@code sector}'s position as a tag of {@code block} of the volume {@code token}. */
    public static Reading decode(ByteBuffer sector, long token, long block) {
        ByteBuffer b = sector.slice(sector.position(), Math.min(sector.remaining(), USED_BYTES))
                .order(ByteOrder.BIG_ENDIAN);
        if (b.remaining() < USED_BYTES || b.getLong(0) != MAGIC || b.getInt(CRC_AT) != crc(b)) {
            return new Reading(0, 0);
        }
        long owner = b.getLong(8);
        if (owner != token) {
            return new Reading(0, owner);
        }
        if (b.getLong(16) != block) {
            // This volume's tag in the wrong place cannot happen short of a corrupted target: not ours.
            return new Reading(0, 0);
        }
        return new Reading(b.getLong(24), 0);
    }

    private static int crc(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b.slice(0, CRC_AT));
        return (int) c.getValue();
    }
}
