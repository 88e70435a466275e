package io.creel.storage.nvmf.nvme;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The fields of the Identify Namespace data structure (CNS 00h) a host needs: size and the LBA
 * format in use.
 *
 * @param nsid the namespace ID this structure describes
 * @param size NSZE, in logical blocks
 * @param capacity NCAP, in logical blocks
 * @param lbaDataSize bytes of data per logical block (2^LBADS of the format in use)
 * @param metadataSize metadata bytes per logical block of the format in use
 * @param extendedMetadata FLBAS bit 4: metadata is transferred inline at the end of each block
 * @param formatIndex the index of the LBA format in use
 */
public record IdentifyNamespace(int nsid, long size, long capacity, int lbaDataSize, int metadataSize,
        boolean extendedMetadata, int formatIndex) {

    private static final int LBAF_TABLE = 128;

    /** Parses the 4096-byte structure from {@code data}'s position. */
    public static IdentifyNamespace parse(int nsid, ByteBuffer data) {
        if (data.remaining() < NvmeCommands.IDENTIFY_LENGTH) {
            throw new IllegalArgumentException("Identify Namespace data is " + NvmeCommands.IDENTIFY_LENGTH
                    + " bytes, got " + data.remaining());
        }
        ByteBuffer b = data.slice().order(ByteOrder.LITTLE_ENDIAN);
        int nlbaf = (b.get(25) & 0xFF) + 1;
        int flbas = b.get(26) & 0xFF;
        // bits 3:0 are the low index bits; bits 6:5 extend it when more than 16 formats exist
        int index = (flbas & 0xF) | (nlbaf > 16 ? ((flbas >>> 5) & 0x3) << 4 : 0);
        if (index >= nlbaf) {
            throw new IllegalArgumentException("namespace " + nsid + ": FLBAS selects LBA format " + index
                    + " of only " + nlbaf);
        }
        int lbaf = b.getInt(LBAF_TABLE + 4 * index);
        int lbads = (lbaf >>> 16) & 0xFF;
        if (lbads < 9 || lbads > 24) {
            throw new IllegalArgumentException("namespace " + nsid + ": LBA data size 2^" + lbads
                    + " is outside 512 B..16 MiB (an inactive namespace reports 0)");
        }
        return new IdentifyNamespace(nsid, b.getLong(0), b.getLong(8), 1 << lbads, lbaf & 0xFFFF,
                (flbas & 0x10) != 0, index);
    }

    /** Namespace size in bytes. */
    public long sizeBytes() {
        return size * lbaDataSize;
    }
}
