package io.creel.storage.nvmf.io;

import io.creel.storage.nvmf.NvmfException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Byte-addressed reads and writes of any offset and length over a {@link SectorDevice}: sector
 * alignment is handled here, never by the caller.
 *
 * <ul>
 *   <li>A read of an unaligned range reads the whole sectors it touches in one pass: the partial
 *       first and last sectors into bounce buffers, the whole sectors in between straight into the
 *       caller's buffer, then copies the wanted bytes of the partial sectors.</li>
 *   <li>A write of an unaligned range locks its partial first and last sectors, reads them, patches
 *       the caller's bytes in, and writes bounce + caller buffer + bounce as one aligned transfer.
 *       Concurrent writes to different bytes of one sector are therefore safe; concurrent writes to
 *       the same bytes land in no defined order.</li>
 *   <li>Transfers larger than the device's largest command are cut into commands, at most
 *       {@code window} in flight per call.</li>
 * </ul>
 *
 * <p>The caller's buffer belongs to this object until the future completes; on success its position
 * has moved past the bytes transferred, on failure it has not moved (a failed read may have changed
 * any of its bytes). Thread-safe.
 */
public final class ByteRangeIo {
    /** Commands in flight per call by default. */
    public static final int DEFAULT_WINDOW = 16;

    private final SectorDevice device;
    private final int window;
    private final SectorLocks locks = new SectorLocks();

    public ByteRangeIo(SectorDevice device) {
        this(device, DEFAULT_WINDOW);
    }

    public ByteRangeIo(SectorDevice device, int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, not " + window);
        }
        if (device.maxTransferBytes() < device.sectorSize()) {
            throw new IllegalArgumentException(device.describe() + ": largest transfer " + device.maxTransferBytes()
                    + " is smaller than a sector (" + device.sectorSize() + ")");
        }
        this.device = device;
        this.window = window;
    }

    public SectorDevice device() {
        return device;
    }

    /** Bytes addressable: sectors times sector size. */
    public long size() {
        return device.sectorCount() * device.sectorSize();
    }

    /** Reads {@code dst.remaining()} bytes from byte {@code offset} into {@code dst}. */
    public CompletableFuture<Void> read(long offset, ByteBuffer dst) {
        int length = dst.remaining();
        NvmfException bad = check("read", offset, length);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        if (length == 0) {
            return CompletableFuture.completedFuture(null);
        }
        Layout l = new Layout(offset, length, device.sectorSize());
        ByteBuffer head = l.headSector >= 0 ? ByteBuffer.allocate(l.sectorSize) : null;
        ByteBuffer tail = l.tailSector >= 0 ? ByteBuffer.allocate(l.sectorSize) : null;
        return ChunkedTransfer.read(device, l.firstSector, window, l.pieces(head, dst, tail)).thenRun(() -> {
            l.copyOut(head, tail, dst);
            dst.position(dst.position() + length);
        });
    }

    /** Writes {@code src.remaining()} bytes of {@code src} at byte {@code offset}. */
    public CompletableFuture<Void> write(long offset, ByteBuffer src) {
        int length = src.remaining();
        NvmfException bad = check("write", offset, length);
        if (bad != null) {
            return CompletableFuture.failedFuture(bad);
        }
        if (length == 0) {
            return CompletableFuture.completedFuture(null);
        }
        Layout l = new Layout(offset, length, device.sectorSize());
        if (l.headSector < 0 && l.tailSector < 0) {
            return ChunkedTransfer.write(device, l.firstSector, window, l.pieces(null, src, null))
                    .thenRun(() -> src.position(src.position() + length));
        }
        long[] partial = l.headSector >= 0 && l.tailSector >= 0 ? new long[] {l.headSector, l.tailSector}
                : new long[] {l.headSector >= 0 ? l.headSector : l.tailSector};
        return locks.acquire(partial).thenCompose(release -> {
            ByteBuffer head = l.headSector >= 0 ? ByteBuffer.allocate(l.sectorSize) : null;
            ByteBuffer tail = l.tailSector >= 0 ? ByteBuffer.allocate(l.sectorSize) : null;
            CompletableFuture<Void> f;
            try {
                f = readPartials(l, head, tail).thenCompose(v -> {
                    l.patchIn(head, tail, src);
                    return ChunkedTransfer.write(device, l.firstSector, window, l.pieces(head, src, tail));
                });
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            return f.whenComplete((v, e) -> release.run());
        }).thenRun(() -> src.position(src.position() + length));
    }

    /**
     * Writes whole sectors from {@code sector}; for callers that did their own alignment (the
     * appender). Takes no locks.
     */
    CompletableFuture<Void> writeSectors(long sector, ByteBuffer... pieces) {
        return ChunkedTransfer.write(device, sector, window, pieces);
    }

    /** Reads whole sectors from {@code sector}; takes no locks. */
    CompletableFuture<Void> readSectors(long sector, ByteBuffer... pieces) {
        return ChunkedTransfer.read(device, sector, window, pieces);
    }

    /** Locks sectors for a read-modify-write of them. */
    CompletableFuture<Runnable> lock(long... sectors) {
        return locks.acquire(sectors);
    }

    /** Sectors locked or waited for right now (zero when no write is under way). */
    int lockedSectors() {
        return locks.size();
    }

    private CompletableFuture<Void> readPartials(Layout l, ByteBuffer head, ByteBuffer tail) {
        if (head != null && tail != null) {
            return CompletableFuture.allOf(ChunkedTransfer.read(device, l.headSector, 1, head),
                    ChunkedTransfer.read(device, l.tailSector, 1, tail));
        }
        return head != null ? ChunkedTransfer.read(device, l.headSector, 1, head)
                : ChunkedTransfer.read(device, l.tailSector, 1, tail);
    }

    private NvmfException check(String op, long offset, long length) {
        long size = size();
        if (offset < 0 || offset > size || length > size - offset) {
            return new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "%s of %d bytes at byte %d of %s, which has %d bytes", op, length, offset, device.describe(), size));
        }
        return null;
    }

    /**
     * Where a byte range falls on sectors: the partial first (head) and last (tail) sectors that need
     * a bounce buffer, and the whole sectors between them, which the caller's buffer covers.
     */
    private static final class Layout {
        final int sectorSize;
        final long firstSector;
        /** Sector read through a bounce buffer at the start, or -1. When the range lies inside one sector, that one. */
        final long headSector;
        /** Sector read through a bounce buffer at the end, or -1 (never the head sector). */
        final long tailSector;
        /** Byte within the head bounce where the range starts. */
        final int headOffset;
        /** Bytes of the range in the head bounce. */
        final int headBytes;
        /** Bytes of the range in the tail bounce (from its start). */
        final int tailBytes;
        /** Bytes of the range covered directly by the caller's buffer. */
        final int middleBytes;

        Layout(long offset, int length, int sectorSize) {
            this.sectorSize = sectorSize;
            long end = offset + length;
            firstSector = offset / sectorSize;
            long lastSector = (end - 1) / sectorSize;
            boolean headPartial = offset % sectorSize != 0;
            boolean tailPartial = end % sectorSize != 0;
            if (firstSector == lastSector && (headPartial || tailPartial)) {
                headSector = firstSector;
                tailSector = -1;
                headOffset = (int) (offset % sectorSize);
                headBytes = length;
                tailBytes = 0;
                middleBytes = 0;
                return;
            }
            headSector = headPartial ? firstSector : -1;
            tailSector = tailPartial ? lastSector : -1;
            headOffset = (int) (offset % sectorSize);
            headBytes = headPartial ? sectorSize - headOffset : 0;
            tailBytes = tailPartial ? (int) (end % sectorSize) : 0;
            middleBytes = length - headBytes - tailBytes;
        }

        /** The aligned transfer: head bounce, the caller's middle bytes, tail bounce. */
        ByteBuffer[] pieces(ByteBuffer head, ByteBuffer caller, ByteBuffer tail) {
            List<ByteBuffer> p = new ArrayList<>(3);
            if (head != null) {
                p.add(head);
            }
            if (middleBytes > 0) {
                p.add(caller.slice(caller.position() + headBytes, middleBytes));
            }
            if (tail != null) {
                p.add(tail);
            }
            return p.toArray(ByteBuffer[]::new);
        }

        /** After a read: the wanted bytes of the bounces into the caller's buffer. */
        void copyOut(ByteBuffer head, ByteBuffer tail, ByteBuffer dst) {
            int p = dst.position();
            if (head != null) {
                dst.put(p, head, headOffset, headBytes);
            }
            if (tail != null) {
                dst.put(p + headBytes + middleBytes, tail, 0, tailBytes);
            }
        }

        /** Before a write: the caller's bytes over the old contents of the bounces. */
        void patchIn(ByteBuffer head, ByteBuffer tail, ByteBuffer src) {
            int p = src.position();
            if (head != null) {
                head.put(headOffset, src, p, headBytes);
            }
            if (tail != null) {
                tail.put(0, src, p + headBytes + middleBytes, tailBytes);
            }
        }
    }
}
