package io.creel.storage.nvmf.io;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One sector-aligned transfer of any length, cut into device commands of at most the device's
 * largest transfer, with at most {@code window} of them in flight. The pieces are slices of the
 * caller's and bounce buffers; only the total must be a whole number of sectors. On the first
 * failure no further commands are sent, and the future fails once those in flight have finished,
 * so no command still uses the buffers when the caller hears back.
 */
final class ChunkedTransfer {
    private final SectorDevice device;
    private final boolean write;
    private final ByteBuffer[] pieces;
    private final int chunkBytes;
    private final int sectorSize;
    private final int window;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private long nextSector;
    private long remaining;
    private int pieceIndex;
    private int pieceOffset;
    private int inFlight;
    private Throwable failure;
    private boolean pumping;
    private boolean again;

    private ChunkedTransfer(SectorDevice device, boolean write, long sector, ByteBuffer[] pieces, int window) {
        this.device = device;
        this.write = write;
        this.pieces = pieces;
        this.sectorSize = device.sectorSize();
        this.chunkBytes = device.maxTransferBytes() / sectorSize * sectorSize;
        this.window = window;
        this.nextSector = sector;
        long total = 0;
        for (ByteBuffer p : pieces) {
            total += p.remaining();
        }
        if (total % sectorSize != 0) {
            throw new IllegalArgumentException("aligned transfer of " + total + " bytes is not a whole number of "
                    + sectorSize + "-byte sectors");
        }
        this.remaining = total;
    }

    /** Reads sectors from {@code sector} into {@code pieces}, in order. */
    static CompletableFuture<Void> read(SectorDevice device, long sector, int window, ByteBuffer... pieces) {
        return start(new ChunkedTransfer(device, false, sector, pieces, window));
    }

    /** Writes {@code pieces}, in order, to sectors from {@code sector}. */
    static CompletableFuture<Void> write(SectorDevice device, long sector, int window, ByteBuffer... pieces) {
        return start(new ChunkedTransfer(device, true, sector, pieces, window));
    }

    private static CompletableFuture<Void> start(ChunkedTransfer t) {
        if (t.remaining == 0) {
            t.done.complete(null);
        } else {
            t.pump();
        }
        return t.done;
    }

    // Completions may arrive on any thread, or inline when a device fails at once; the pumping flag
    // turns re-entrant calls into another turn of the loop instead of deeper recursion.
    private void pump() {
        synchronized (this) {
            if (pumping) {
                again = true;
                return;
            }
            pumping = true;
        }
        while (true) {
            ByteBuffer[] parts = null;
            long sector = 0;
            synchronized (this) {
                if (failure == null && remaining > 0 && inFlight < window) {
                    sector = nextSector;
                    parts = nextChunk();
                    inFlight++;
                } else {
                    if (inFlight == 0) {
                        finish();
                    }
                    if (!again) {
                        pumping = false;
                        return;
                    }
                    again = false;
                    continue;
                }
            }
            CompletableFuture<Void> f;
            try {
                f = write ? device.write(sector, parts) : device.read(sector, parts);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((v, e) -> {
                synchronized (this) {
                    inFlight--;
                    if (e != null && failure == null) {
                        failure = e;
                    }
                }
                pump();
            });
        }
    }

    private void finish() {
        if (failure != null) {
            done.completeExceptionally(failure);
        } else if (remaining == 0) {
            done.complete(null);
        }
    }

    /** The next command's buffers: up to {@code chunkBytes} bytes of the pieces from the cursor. */
    private ByteBuffer[] nextChunk() {
        int want = (int) Math.min(chunkBytes, remaining);
        int count = 0;
        int left = want;
        for (int i = pieceIndex, off = pieceOffset; left > 0; i++, off = 0) {
            left -= Math.min(left, pieces[i].remaining() - off);
            count++;
        }
        ByteBuffer[] parts = new ByteBuffer[count];
        left = want;
        for (int k = 0; k < count; k++) {
            ByteBuffer p = pieces[pieceIndex];
            int n = Math.min(left, p.remaining() - pieceOffset);
            parts[k] = p.slice(p.position() + pieceOffset, n);
            left -= n;
            pieceOffset += n;
            if (pieceOffset == p.remaining()) {
                pieceIndex++;
                pieceOffset = 0;
            }
        }
        remaining -= want;
        nextSector += want / sectorSize;
        return parts;
    }
}
