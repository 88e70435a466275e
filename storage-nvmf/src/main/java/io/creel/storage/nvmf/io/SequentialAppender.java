package io.creel.storage.nvmf.io;

import io.creel.storage.nvmf.NvmfException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Appends bytes of any length at a growing offset of a {@link SectorDevice}, keeping the last,
 * partly filled sector in a staging buffer so that it is never read back: a sequence of small
 * appends costs one read at most (of the sector the append start falls in, when that start is not
 * sector-aligned), and each sector is written once it is full, or on {@link #flush()}.
 *
 * <p>Whole sectors of an append go from the caller's buffer straight to the device. The partial tail
 * is copied into the staging buffer. {@link #flush()} writes the staged sector as it is (bytes past
 * the append position are those read at the start, or zeros) and keeps it staged, so later appends
 * fill it further and write it again; writes of the same sector are kept in order.
 *
 * <p>One writer: calls must not overlap from several threads, but appends may be issued before earlier
 * ones complete. A buffer passed to {@link #append} belongs to the appender until its future
 * completes; then its position has moved past the bytes appended.
 */
public final class SequentialAppender {
    private final ByteRangeIo io;
    private final int sectorSize;
    private final long limit;
    private long position;
    /** The sector holding {@code position} when it is not sector-aligned; else null. */
    private ByteBuffer staged;
    private boolean stagedDirty;
    /** The last write issued that covered the staged sector (a flush); a later write of it waits for it. */
    private CompletableFuture<Void> stagedWrite = CompletableFuture.completedFuture(null);
    private CompletableFuture<Void> allWrites = CompletableFuture.completedFuture(null);

    private SequentialAppender(ByteRangeIo io, long start, long limit, ByteBuffer staged) {
        this.io = io;
        this.sectorSize = io.device().sectorSize();
        this.position = start;
        this.limit = limit;
        this.staged = staged;
    }

    /**
     * Opens an appender that writes from byte {@code start} up to {@code limit}, which must be a
     * multiple of the sector size (or the device's size): bytes past it are never touched. When
     * {@code start} is not sector-aligned, the sector it falls in is read first, once, to keep the
     * bytes before it.
     */
    public static CompletableFuture<SequentialAppender> open(ByteRangeIo io, long start, long limit) {
        int sector = io.device().sectorSize();
        if (start < 0 || start > limit || limit > io.size() || (limit % sector != 0 && limit != io.size())) {
            return CompletableFuture.failedFuture(new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "appender over bytes %d..%d of %s: the range must lie within its %d bytes and end on a %d-byte "
                            + "sector boundary", start, limit, io.device().describe(), io.size(), sector)));
        }
        if (start % sector == 0) {
            return CompletableFuture.completedFuture(new SequentialAppender(io, start, limit, null));
        }
        ByteBuffer head = ByteBuffer.allocate(sector);
        return io.readSectors(start / sector, head).thenApply(v -> new SequentialAppender(io, start, limit, head));
    }

    /** The offset the next append writes at. */
    public long position() {
        return position;
    }

    /**
     * Appends {@code src}'s remaining bytes. The future completes when the whole sectors among them
     * are written; bytes left in the staging buffer are written by a later append or {@link #flush()}.
     */
    public CompletableFuture<Void> append(ByteBuffer src) {
        int length = src.remaining();
        if (length > limit - position) {
            return CompletableFuture.failedFuture(new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "append of %d bytes at byte %d of %s passes the appender's end at byte %d", length, position,
                    io.device().describe(), limit)));
        }
        int srcPos = src.position();
        int used = 0;
        ByteBuffer fullStaged = null;
        long firstSector = position / sectorSize;
        if (position % sectorSize != 0) {
            int at = (int) (position % sectorSize);
            int n = Math.min(sectorSize - at, length);
            staged.put(at, src, srcPos, n);
            used = n;
            position += n;
            stagedDirty = true;
            if (at + n == sectorSize) {
                fullStaged = staged;
                staged = null;
                stagedDirty = false;
            }
        }
        int whole = (length - used) / sectorSize * sectorSize;
        ByteBuffer middle = whole > 0 ? src.slice(srcPos + used, whole) : null;
        used += whole;
        position += whole;
        int rest = length - used;
        if (rest > 0) {
            staged = ByteBuffer.allocate(sectorSize);
            staged.put(0, src, srcPos + used, rest);
            position += rest;
            stagedDirty = true;
        }
        if (fullStaged == null && middle == null) {
            src.position(srcPos + length);
            return CompletableFuture.completedFuture(null);
        }
        ByteBuffer[] pieces = fullStaged != null && middle != null ? new ByteBuffer[] {fullStaged, middle}
                : new ByteBuffer[] {fullStaged != null ? fullStaged : middle};
        // a full staged sector may have an earlier flush of it still in flight: write after it
        CompletableFuture<Void> before = fullStaged != null ? stagedWrite : CompletableFuture.completedFuture(null);
        if (fullStaged != null) {
            stagedWrite = CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> w = before.thenCompose(v -> io.writeSectors(firstSector, pieces));
        allWrites = CompletableFuture.allOf(allWrites, w);
        return w.thenRun(() -> src.position(srcPos + length));
    }

    /**
     * Writes the staged partial sector, if it holds bytes not yet written, and completes when every
     * byte appended so far is on the device (or fails with the first write error since open).
     */
    public CompletableFuture<Void> flush() {
        if (stagedDirty) {
            ByteBuffer copy = ByteBuffer.allocate(sectorSize);
            copy.put(0, staged, 0, sectorSize);
            long sector = position / sectorSize;
            CompletableFuture<Void> w = stagedWrite.thenCompose(v -> io.writeSectors(sector, copy));
            stagedWrite = w;
            stagedDirty = false;
            allWrites = CompletableFuture.allOf(allWrites, w);
        }
        return allWrites;
    }
}
