package io.creel.storage.nvmf.format;

/**
 * Where a Creel volume's parts lie on an NVMe namespace, in sectors (logical blocks):
 *
 * <pre>
 *   sector 0                    the volume header ({@link VolumeHeader}), in the first 4 KiB
 *   tagSector .. +blockCount    one tag sector per block ({@link TagSector})
 *   dataSector ..               the blocks, blockSize bytes each, dataSector aligned to 1 MiB
 * </pre>
 *
 * <p>A tag has a sector of its own rather than a slot in a shared sector: writing one sector is
 * atomic on NVMe, so two writers claiming two blocks never overwrite each other's tag (a shared sector
 * would need a read-modify-write, which is not atomic across hosts). The price is one sector per
 * block: 0.05 % of the capacity with 1 MiB blocks on 512-byte sectors, 0.4 % on 4 KiB sectors, plus
 * less than 1 MiB of alignment.
 *
 * @param sectorSize bytes per sector
 * @param blockSize  bytes per block, a multiple of the sector size
 * @param blockCount blocks the volume offers
 * @param tagSector  the first tag sector
 * @param dataSector the sector block 0 starts at
 */
public record VolumeLayout(int sectorSize, int blockSize, long blockCount, long tagSector, long dataSector) {
    /** Bytes kept for the header at the start of the namespace. */
    public static final int HEADER_BYTES = 4096;
    /** Block 0 starts at a multiple of this many bytes (flash likes large aligned writes). */
    public static final long DATA_ALIGNMENT = 1L << 20;

    public VolumeLayout {
        if (sectorSize < 512 || Integer.bitCount(sectorSize) != 1) {
            throw new IllegalArgumentException("sector size " + sectorSize + " is not a power of two of at least 512");
        }
        if (blockSize < sectorSize || blockSize % sectorSize != 0) {
            throw new IllegalArgumentException("block size " + blockSize + " is not a multiple of the "
                    + sectorSize + "-byte sector");
        }
        if (blockCount < 1 || tagSector < 1 || dataSector < tagSector + blockCount) {
            throw new IllegalArgumentException("inconsistent layout: " + blockCount + " blocks, tags from sector "
                    + tagSector + ", data from sector " + dataSector);
        }
    }

    /**
     * The most blocks of {@code blockSize} that fit in the first {@code usableSectors} sectors with
     * their tags and the header.
     *
     * @throws IllegalArgumentException naming the sizes, when the block size does not suit the sector
     *     size or not even one block fits
     */
    public static VolumeLayout plan(int sectorSize, long usableSectors, int blockSize) {
        if (sectorSize < 512 || Integer.bitCount(sectorSize) != 1) {
            throw new IllegalArgumentException("sector size " + sectorSize + " is not a power of two of at least 512");
        }
        if (blockSize < sectorSize || blockSize % sectorSize != 0) {
            throw new IllegalArgumentException("the block size (" + blockSize + " bytes) must be a multiple of the "
                    + "namespace's " + sectorSize + "-byte sector");
        }
        long tagSector = Math.max(1, HEADER_BYTES / sectorSize);
        long alignSectors = Math.max(1, DATA_ALIGNMENT / sectorSize);
        long blockSectors = blockSize / sectorSize;
        // Each block costs its data and one tag sector; alignment takes less than alignSectors.
        long count = (usableSectors - tagSector) / (blockSectors + 1);
        while (count > 0 && dataStart(tagSector, count, alignSectors) + count * blockSectors > usableSectors) {
            count--;
        }
        if (count < 1) {
            throw new IllegalArgumentException(usableSectors + " sectors of " + sectorSize + " bytes hold no block of "
                    + blockSize + " bytes with its tag sector, the header and 1 MiB alignment");
        }
        return new VolumeLayout(sectorSize, blockSize, count, tagSector, dataStart(tagSector, count, alignSectors));
    }

    private static long dataStart(long tagSector, long count, long alignSectors) {
        long end = tagSector + count;
        return (end + alignSectors - 1) / alignSectors * alignSectors;
    }

    /** The sector holding {@code block}'s tag. */
    public long tagSectorOf(long block) {
        checkBlock(block);
        return tagSector + block;
    }

    /** The byte of the namespace where {@code offset} of {@code block} is. */
    public long byteOf(long block, int offset) {
        checkBlock(block);
        if (offset < 0 || offset > blockSize) {
            throw new IllegalArgumentException("offset " + offset + " outside a block of " + blockSize + " bytes");
        }
        return dataSector * sectorSize + block * (long) blockSize + offset;
    }

    /** Sectors the volume uses, from sector 0. */
    public long usedSectors() {
        return dataSector + blockCount * (blockSize / sectorSize);
    }

    /** Bytes of {@code usableSectors} that hold no block data (header, tags, alignment, the rest). */
    public long overheadBytes(long usableSectors) {
        return usableSectors * sectorSize - blockCount * blockSize;
    }

    private void checkBlock(long block) {
        if (block < 0 || block >= blockCount) {
            throw new IllegalArgumentException("block " + block + " outside 0.." + (blockCount - 1));
        }
    }
}
