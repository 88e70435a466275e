package io.creel.storage.spi;

import java.nio.ByteBuffer;

/**
 * Fixed-size blocks of one storage medium, read and written at byte granularity. Callers check
 * ranges and tags first; a medium only moves bytes. Implementations are safe for concurrent use:
 * writes to different bytes never disturb each other, even within one disk sector.
 */
public interface BlockMedium extends AutoCloseable {
    /** Bytes per block. */
    int blockSize();

    /** Number of blocks. */
    long blockCount();

    /**
     * Copies {@code dst.remaining()} bytes at {@code offset} of {@code block} into {@code dst},
     * advancing its position.
     *
     * @throws java.io.IOException if the medium fails
     */
    void read(long block, int offset, ByteBuffer dst) throws java.io.IOException;

    /**
     * Copies {@code src.remaining()} bytes from {@code src} to {@code offset} of {@code block},
     * advancing its position.
     *
     * @throws java.io.IOException if the medium fails
     */
    void write(long block, int offset, ByteBuffer src) throws java.io.IOException;

    /**
     * The bytes of {@code length} at {@code offset} of {@code block} as they sit in memory, for a medium
     * that is memory (DRAM): a view sharing it (position 0, limit {@code length}), which a transport may
     * send from or receive into directly, checking tags itself. {@code null} (the default) for a medium
     * that must be read and written through {@link #read} and {@link #write}. Callers check ranges first.
     */
    default ByteBuffer memory(long block, int offset, int length) {
        return null;
    }

    /** One line for logs: the kind of medium and its I/O mode. */
    String describe();

    /**
     * Makes every write so far durable in the medium's files (msync, fsync), for a server whose files
     * outlive it.
     *
     * @throws java.io.IOException if the medium fails
     */
    void force() throws java.io.IOException;

    /** Releases the medium (unmaps, closes files); does not delete files. */
    @Override
    void close();
}
