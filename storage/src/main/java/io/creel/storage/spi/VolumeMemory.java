package io.creel.storage.spi;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A volume's blocks and tags as memory mapped into the storage server, for an exporter that hands
 * memory to a device (RDMA registers it once, then clients read and write it without the server).
 * The buffers share the volume's mappings and are valid until the volume closes; an exporter stops
 * using them in its {@link BlockExporter.Export#close()}, which runs first.
 *
 * @param segments         the blocks, in order: segment {@code i} holds blocks
 *                         {@code i * blocksPerSegment} up to the next segment's first, from
 *                         position 0; a block never straddles two segments
 * @param blocksPerSegment blocks of every segment but the last
 * @param blockSize        bytes per block
 * @param tags             the tag table: one 8-byte word per block from position 0, in this
 *                         machine's byte order, 8-byte aligned (see {@link io.creel.storage.format.BlockTags})
 */
public record VolumeMemory(List<ByteBuffer> segments, int blocksPerSegment, int blockSize, ByteBuffer tags) {
    public VolumeMemory {
        segments = List.copyOf(segments);
        if (segments.isEmpty() || blocksPerSegment < 1 || blockSize < 1) {
            throw new IllegalArgumentException("a volume's memory needs segments of whole blocks");
        }
        for (ByteBuffer s : segments) {
            if (!s.isDirect()) {
                throw new IllegalArgumentException("a volume's memory is direct (mapped) memory");
            }
        }
        if (!tags.isDirect()) {
            throw new IllegalArgumentException("a volume's tag table is direct (mapped) memory");
        }
    }

    /** The number of blocks the segments hold. */
    public long blockCount() {
        long n = 0;
        for (ByteBuffer s : segments) {
            n += s.capacity() / blockSize;
        }
        return n;
    }
}
