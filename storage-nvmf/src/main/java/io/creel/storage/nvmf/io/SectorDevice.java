package io.creel.storage.nvmf.io;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A block device addressed in whole sectors (logical blocks), with a largest transfer per command:
 * what an NVMe namespace offers. Buffers are used from position to limit, several buffers making one
 * transfer in order, and are not moved; they belong to the device until the future completes.
 */
public interface SectorDevice {
    /** Bytes per sector (logical block). */
    int sectorSize();

    /** Sectors on the device. */
    long sectorCount();

    /** Most bytes one {@link #read} or {@link #write} may move: a multiple of {@link #sectorSize()}. */
    int maxTransferBytes();

    /** Reads whole sectors from {@code sector} into {@code dst} (total a multiple of the sector size). */
    CompletableFuture<Void> read(long sector, ByteBuffer... dst);

    /** Writes whole sectors at {@code sector} from {@code src} (total a multiple of the sector size). */
    CompletableFuture<Void> write(long sector, ByteBuffer... src);

    /** Names the device in error messages, e.g. "namespace 1 of nqn... at host:port". */
    String describe();
}
