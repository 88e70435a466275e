package io.creel.storage.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The tag table of a tag file ({@link TagFile} layout), mapped into this process. The server maps it
 * read-write to claim and check tags; same-host clients map the very same file, so both see every
 * claim at once. Closing unmaps it.
 */
public final class MappedTagTable implements AutoCloseable {
    private final MappedRegion mapping;
    private final BlockTags tags;
    private final ByteBuffer table;

    private MappedTagTable(MappedRegion mapping, BlockTags tags, ByteBuffer table) {
        this.mapping = mapping;
        this.tags = tags;
        this.table = table;
    }

    /**
     * Maps the {@code blockCount} tags at {@link TagFile#TAG_OFFSET} of {@code file}.
     *
     * @param writable whether this process may claim tags (servers and writing clients)
     */
    public static MappedTagTable open(Path file, long blockCount, boolean writable) throws IOException {
        if (blockCount * 8 > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("tag table of " + blockCount + " blocks exceeds one mapping");
        }
        int tableBytes = (int) Math.max(8, blockCount * 8);
        StandardOpenOption[] options = writable
                ? new StandardOpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE}
                : new StandardOpenOption[] {StandardOpenOption.READ};
        try (FileChannel ch = FileChannel.open(file, options)) {
            // The whole table as one "block": MappedRegion gives a slice and prompt unmapping.
            MappedRegion region = new MappedRegion(ch, writable ? FileChannel.MapMode.READ_WRITE
                    : FileChannel.MapMode.READ_ONLY, TagFile.TAG_OFFSET, tableBytes, 1);
            ByteBuffer table = region.slice(0, 0, tableBytes);
            return new MappedTagTable(region, new BlockTags(table, blockCount), table);
        }
    }

    /** The tags; valid until {@link #close}. */
    public BlockTags tags() {
        return tags;
    }

    /**
     * The mapped table itself (one native-order word per block from position 0), for handing to a
     * device; valid until {@link #close}.
     */
    public ByteBuffer buffer() {
        return table.duplicate().clear();
    }

    /** Writes the mapped tags back to the file (msync). */
    public void force() {
        mapping.force();
    }

    @Override
    public void close() {
        mapping.close();
    }
}
