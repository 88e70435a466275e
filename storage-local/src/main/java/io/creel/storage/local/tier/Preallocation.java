package io.creel.storage.local.tier;

import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.local.LocalTierKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Allocates the memory of a new DRAM region file by writing zeros over its data area.
 *
 * <p>A region file starts sparse. Left so, every first touch of a page through a mapping costs a page
 * fault that also allocates and clears the page (about four times the cost of copying the page), and
 * a tmpfs that cannot hold the whole region is only noticed when a write finds no page: a SIGBUS in
 * whichever process wrote through its mapping. Written once at start, the pages exist: a tmpfs too
 * small fails the start with a clear error, and clients pay only for mapping pages in (or copy with
 * pread/pwrite, which needs no mapping at all).
 */
final class Preallocation {
    private static final int CHUNK = 1 << 20;

    private Preallocation() {
    }

    /** Writes zeros over {@code length} bytes at {@code offset} of {@code file}. */
    static void fill(Path file, long offset, long length) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long pos = offset;
            long end = offset + length;
            while (pos < end) {
                zeros.clear().limit((int) Math.min(CHUNK, end - pos));
                try {
                    while (zeros.hasRemaining()) {
                        pos += ch.write(zeros, pos);
                    }
                } catch (IOException e) {
                    throw new CreelException(ErrorCode.CONFIGURATION, "cannot allocate the memory of " + file + ": "
                            + ConfValues.formatSize(pos - offset) + " of " + ConfValues.formatSize(length)
                            + " written (" + e.getMessage() + "); the file system of " + LocalTierKeys.DRAM_PATH.name()
                            + " is too small for " + LocalTierKeys.DRAM_SIZE.name() + ", or set "
                            + LocalTierKeys.DRAM_PREALLOCATE.name() + " = false", e);
                }
            }
        }
    }
}
