package io.creel.storage.local.medium;

import com.sun.nio.file.ExtendedOpenOption;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.spi.BlockMedium;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Blocks in a preallocated data file, read and written with positional I/O, through O_DIRECT where
 * the filesystem allows it (bypassing the page cache, as an SSD tier should) or through the page
 * cache otherwise.
 *
 * <p>O_DIRECT needs sector-aligned buffers, file positions and lengths. Callers work at byte
 * granularity, so an unaligned head or tail is read, patched and written back whole
 * (read-modify-write). Two writers patching one sector would otherwise overwrite each other's bytes
 * with stale copies, so every write of a block holds that block's stripe lock; reads take no lock.
 */
public final class DiskMedium implements BlockMedium {
    private static final Logger LOG = LoggerFactory.getLogger(DiskMedium.class);
    private static final int MIN_SECTOR = 512;
    private static final int STRIPES = 64;

    /** How {@code creel.storage.disk.direct} asks for O_DIRECT. */
    public enum DirectMode {
        /** Use O_DIRECT if the filesystem accepts it, else the page cache. */
        AUTO,
        /** O_DIRECT or a configuration error. */
        REQUIRED,
        /** Always the page cache. */
        OFF;

        /** Parses the configuration value "auto", "true" or "false". */
        public static DirectMode parse(String value) {
            return switch (value) {
                case "true" -> REQUIRED;
                case "false" -> OFF;
                case "auto" -> AUTO;
                default -> throw new CreelException(ErrorCode.CONFIGURATION,
                        "creel.storage.disk.direct must be auto, true or false: " + value);
            };
        }
    }

    /** Opens a file for O_DIRECT I/O; a seam so a filesystem that refuses O_DIRECT can be stood in for. */
    @FunctionalInterface
    public interface DirectOpener {
        FileChannel open(Path file) throws IOException;
    }

    /** The real thing: {@code open(2)} with {@code O_DIRECT}. */
    public static final DirectOpener O_DIRECT = file -> FileChannel.open(file, new OpenOption[] {
        StandardOpenOption.READ, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT});

    private final FileChannel channel;
    private final int blockSize;
    private final long blockCount;
    private final boolean direct;
    private final int sector;
    private final String mode;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final ThreadLocal<ByteBuffer> staging;

    private DiskMedium(FileChannel channel, int blockSize, long blockCount, boolean direct, int sector, String mode) {
        this.channel = channel;
        this.blockSize = blockSize;
        this.blockCount = blockCount;
        this.direct = direct;
        this.sector = sector;
        this.mode = mode;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
        // One staging buffer per I/O thread: an unaligned range of at most a block spans at most
        // a block plus two sectors once widened to sector boundaries.
        this.staging = ThreadLocal.withInitial(() -> alignedBuffer(blockSize + 2 * sector, sector));
    }

    /**
     * Opens an existing data file of at least {@code blockCount * blockSize} bytes.
     *
     * @throws CreelException CONFIGURATION if O_DIRECT is required and the filesystem refuses it
     */
    public static DiskMedium open(Path file, int blockSize, long blockCount, DirectMode mode) throws IOException {
        return open(file, blockSize, blockCount, mode, O_DIRECT);
    }

    /** As {@link #open(Path, int, long, DirectMode)}, opening for O_DIRECT with {@code opener}. */
    public static DiskMedium open(Path file, int blockSize, long blockCount, DirectMode mode, DirectOpener opener)
            throws IOException {
        if (mode != DirectMode.OFF) {
            int sector = Math.max(MIN_SECTOR, (int) Math.min(Integer.MAX_VALUE, Files.getFileStore(file).getBlockSize()));
            String refusal = null;
            if (blockSize % sector != 0) {
                refusal = "block size " + blockSize + " is not a multiple of the filesystem's " + sector + "-byte sectors";
            } else {
                FileChannel ch = null;
                try {
                    ch = opener.open(file);
                    // Some filesystems accept the flag at open and refuse only the I/O: probe one sector.
                    ByteBuffer probe = alignedBuffer(sector, sector);
                    ch.read(probe, 0);
                    LOG.debug("{}: O_DIRECT with {}-byte sectors", file, sector);
                    return new DiskMedium(ch, blockSize, blockCount, true, sector, "O_DIRECT, " + sector + "-byte sectors");
                } catch (IOException | UnsupportedOperationException e) {
                    if (ch != null) {
                        ch.close();
                    }
                    refusal = String.valueOf(e.getMessage());
                }
            }
            if (mode == DirectMode.REQUIRED) {
                throw new CreelException(ErrorCode.CONFIGURATION, "creel.storage.disk.direct=true but the filesystem of "
                        + file + " does not support O_DIRECT: " + refusal);
            }
            LOG.info("{}: O_DIRECT not supported ({}); using the page cache", file, refusal);
            return pageCache(file, blockSize, blockCount, "page cache (O_DIRECT not supported by this filesystem)");
        }
        return pageCache(file, blockSize, blockCount, "page cache (O_DIRECT disabled by creel.storage.disk.direct=false)");
    }

    private static DiskMedium pageCache(Path file, int blockSize, long blockCount, String mode) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        return new DiskMedium(ch, blockSize, blockCount, false, 1, mode);
    }

    /** A direct buffer of {@code size} bytes whose address is a multiple of {@code align}. */
    static ByteBuffer alignedBuffer(int size, int align) {
        return ByteBuffer.allocateDirect(size + align).alignedSlice(align).limit(size);
    }

    /** Whether I/O bypasses the page cache. */
    public boolean isDirect() {
        return direct;
    }

    /** Alignment of file positions and lengths (1 without O_DIRECT). */
    public int sectorSize() {
        return sector;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public long blockCount() {
        return blockCount;
    }

    @Override
    public String describe() {
        return mode;
    }

    @Override
    public void read(long block, int offset, ByteBuffer dst) throws IOException {
        long pos = position(block, offset, dst.remaining());
        if (!direct) {
            readFully(dst, pos);
            return;
        }
        int len = dst.remaining();
        long start = alignDown(pos);
        long end = alignUp(pos + len);
        ByteBuffer st = staging.get().clear().limit((int) (end - start));
        readFully(st, start);
        st.limit((int) (pos - start) + len).position((int) (pos - start));
        dst.put(st);
    }

    @Override
    public void write(long block, int offset, ByteBuffer src) throws IOException {
        long pos = position(block, offset, src.remaining());
        if (!direct) {
            // pwrite of disjoint ranges through the page cache never disturbs other bytes: no lock.
            writeFully(src, pos);
            return;
        }
        int len = src.remaining();
        long start = alignDown(pos);
        long end = alignUp(pos + len);
        int span = (int) (end - start);
        ReentrantLock lock = stripes[(int) (block % STRIPES)];
        lock.lock();
        try {
            ByteBuffer st = staging.get().clear().limit(span);
            boolean headPatched = pos != start;
            if (headPatched) {
                readFully(st.duplicate().position(0).limit(sector), start);
            }
            boolean tailPatched = pos + len != end;
            if (tailPatched && !(headPatched && span == sector)) {
                readFully(st.duplicate().position(span - sector).limit(span), end - sector);
            }
            st.position((int) (pos - start));
            st.put(src);
            st.position(0).limit(span);
            writeFully(st, start);
        } finally {
            lock.unlock();
        }
    }

    private long position(long block, int offset, int length) {
        if (block < 0 || block >= blockCount || offset < 0 || (long) offset + length > blockSize) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "block " + block + " range " + offset + "+" + length
                    + " is outside " + blockCount + " blocks of " + blockSize + " bytes");
        }
        return block * blockSize + offset;
    }

    private long alignDown(long v) {
        return v - v % sector;
    }

    private long alignUp(long v) {
        return alignDown(v + sector - 1);
    }

    private void readFully(ByteBuffer dst, long pos) throws IOException {
        long p = pos;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, p);
            if (n < 0) {
                throw new IOException("unexpected end of the data file at byte " + p);
            }
            p += n;
        }
    }

    private void writeFully(ByteBuffer src, long pos) throws IOException {
        long p = pos;
        while (src.hasRemaining()) {
            p += channel.write(src, p);
        }
    }

    @Override
    public void force() throws IOException {
        channel.force(true);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.warn("closing the disk data file failed: {}", e.toString());
        }
    }
}
