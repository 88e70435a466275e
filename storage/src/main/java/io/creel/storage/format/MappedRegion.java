package io.creel.storage.format;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks of a file mapped into memory. A mapping is limited to 2 GiB, so the blocks are mapped in
 * segments of whole blocks; a block never straddles two segments. Used by the DRAM tier to serve
 * its region and by same-host clients to reach it without a round trip.
 */
public final class MappedRegion implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MappedRegion.class);
    private static final long MAX_SEGMENT = 1L << 30;
    /** The smallest page size of the platforms Creel runs on; touching more often is harmless. */
    private static final int PAGE = 4096;

    private final int blockSize;
    private final long blockCount;
    private final int blocksPerSegment;
    private final MappedByteBuffer[] segments;
    /** Where {@link #mapIn} puts what it read. */
    @SuppressWarnings("unused")
    private volatile long touched;

    /**
     * Maps {@code blockCount} blocks of {@code blockSize} starting at {@code offset} of {@code ch}.
     * The channel may be closed afterwards; the mapping stays valid until {@link #close}.
     */
    public MappedRegion(FileChannel ch, FileChannel.MapMode mode, long offset, int blockSize, long blockCount)
            throws IOException {
        this.blockSize = blockSize;
        this.blockCount = blockCount;
        this.blocksPerSegment = (int) Math.max(1, MAX_SEGMENT / blockSize);
        int n = (int) ((blockCount + blocksPerSegment - 1) / blocksPerSegment);
        this.segments = new MappedByteBuffer[n];
        for (int i = 0; i < n; i++) {
            long first = (long) i * blocksPerSegment;
            long blocks = Math.min(blocksPerSegment, blockCount - first);
            segments[i] = ch.map(mode, offset + first * blockSize, blocks * blockSize);
        }
    }

    public int blockSize() {
        return blockSize;
    }

    public long blockCount() {
        return blockCount;
    }

    /** Blocks per mapped segment (the last may hold fewer). */
    public int blocksPerSegment() {
        return blocksPerSegment;
    }

    /**
     * The mapped segments, each a buffer over whole blocks from position 0 sharing the mapping (for
     * handing the memory to a device); valid until {@link #close}.
     */
    public List<ByteBuffer> segments() {
        List<ByteBuffer> all = new ArrayList<>(segments.length);
        for (MappedByteBuffer seg : segments) {
            if (seg == null) {
                throw new IllegalStateException("the region is unmapped");
            }
            all.add(seg.duplicate().clear());
        }
        return all;
    }

    /**
     * A buffer over {@code length} bytes at {@code offset} in {@code block}, sharing the mapping
     * (position 0, limit {@code length}). Range-checked.
     */
    public ByteBuffer slice(long block, int offset, int length) {
        if (block < 0 || block >= blockCount) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "block " + block + " out of range 0.." + (blockCount - 1));
        }
        if (offset < 0 || length < 0 || (long) offset + length > blockSize) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "range " + offset + "+" + length
                    + " exceeds block size " + blockSize);
        }
        MappedByteBuffer seg = segments[(int) (block / blocksPerSegment)];
        int start = (int) (block % blocksPerSegment) * blockSize + offset;
        return seg.slice(start, length);
    }

    /**
     * Maps every page of {@code block} into this process's page tables now, by reading a byte of each
     * page, so that later copies run at memory speed instead of faulting page by page. On a shared
     * tmpfs mapping a page mapped by a read is writable too, and each read fault lets the kernel map
     * the neighbouring pages already in memory, so this costs a sixteenth of the faults that copying
     * into a fresh mapping would.
     */
    public void mapIn(long block) {
        ByteBuffer b = slice(block, 0, blockSize);
        long sum = 0;
        for (int i = 0; i < blockSize; i += PAGE) {
            sum += b.get(i);
        }
        touched = sum; // so the reads are not optimised away
    }

    /** Writes every change to the mapped blocks back to the file (msync), for files that outlive the process. */
    public void force() {
        for (MappedByteBuffer seg : segments) {
            if (seg != null) {
                seg.force();
            }
        }
    }

    /** Unmaps now rather than at garbage collection, so the file's memory is returned promptly. */
    @Override
    public void close() {
        for (int i = 0; i < segments.length; i++) {
            if (segments[i] != null) {
                Unmapper.unmap(segments[i]);
                segments[i] = null;
            }
        }
    }

    /** Releases a mapping through the JDK's cleaner, where the runtime allows it. */
    static final class Unmapper {
        private static final Object UNSAFE;
        private static final Method INVOKE_CLEANER;

        static {
            Object unsafe = null;
            Method m = null;
            try {
                Class<?> c = Class.forName("sun.misc.Unsafe");
                Field f = c.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                unsafe = f.get(null);
                m = c.getMethod("invokeCleaner", ByteBuffer.class);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.debug("mapped buffers will be released by the garbage collector: {}", e.toString());
            }
            UNSAFE = unsafe;
            INVOKE_CLEANER = m;
        }

        private Unmapper() {
        }

        static void unmap(ByteBuffer b) {
            if (INVOKE_CLEANER == null) {
                return;
            }
            try {
                INVOKE_CLEANER.invoke(UNSAFE, b);
            } catch (ReflectiveOperationException e) {
                LOG.debug("cannot unmap: {}", e.toString());
            }
        }
    }
}
