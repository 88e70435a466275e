package io.creel.storage.local.medium;

import io.creel.storage.format.MappedRegion;
import io.creel.storage.spi.BlockMedium;
import java.nio.ByteBuffer;

/**
 * Blocks in a memory-mapped region file (on a tmpfs, so it is DRAM). Reads and writes are plain
 * memory copies; the same mapping is what same-host clients use directly.
 */
public final class DramMedium implements BlockMedium {
    private final MappedRegion region;

    /** Serves the blocks of {@code region}; closing this medium unmaps it. */
    public DramMedium(MappedRegion region) {
        this.region = region;
    }

    @Override
    public int blockSize() {
        return region.blockSize();
    }

    @Override
    public long blockCount() {
        return region.blockCount();
    }

    @Override
    public void read(long block, int offset, ByteBuffer dst) {
        dst.put(region.slice(block, offset, dst.remaining()));
    }

    @Override
    public void write(long block, int offset, ByteBuffer src) {
        region.slice(block, offset, src.remaining()).put(src);
    }

    /** The mapped region itself: the TCP exporter sends from it without copying. */
    @Override
    public ByteBuffer memory(long block, int offset, int length) {
        return region.slice(block, offset, length);
    }

    @Override
    public String describe() {
        return "memory-mapped region";
    }

    @Override
    public void force() {
        region.force();
    }

    @Override
    public void close() {
        region.close();
    }
}
