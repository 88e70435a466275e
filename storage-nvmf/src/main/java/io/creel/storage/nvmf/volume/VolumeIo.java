package io.creel.storage.nvmf.volume;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.format.TagSector;
import io.creel.storage.nvmf.format.VolumeHeader;
import io.creel.storage.nvmf.format.VolumeLayout;
import io.creel.storage.nvmf.io.ByteRangeIo;
import io.creel.storage.nvmf.io.SectorDevice;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A Creel volume on an NVMe namespace: block bytes at any offset and length (sector alignment is
 * {@link ByteRangeIo}'s), block tag sectors, and the header. The one place that knows where things
 * are on the namespace; the server's medium and the clients' transports both go through it.
 * Thread-safe; buffers are lent until the future completes.
 */
public final class VolumeIo {
    private final SectorDevice device;
    private final ByteRangeIo bytes;
    private final VolumeLayout layout;
    private final long token;

    /**
     * @param bytes  byte-addressed access to {@code device}; share one per namespace in a process, so
     *               read-modify-writes of one sector by two writers of the process never lose bytes
     * @param token  the volume's token (its server's)
     */
    public VolumeIo(ByteRangeIo bytes, VolumeLayout layout, long token) {
        this.device = bytes.device();
        this.bytes = bytes;
        this.layout = layout;
        this.token = token;
        if (device.sectorSize() != layout.sectorSize()) {
            throw new IllegalArgumentException(device.describe() + " has " + device.sectorSize() + "-byte sectors, "
                    + "the volume " + layout.sectorSize() + "-byte ones");
        }
        if (layout.usedSectors() > device.sectorCount()) {
            throw new IllegalArgumentException("the volume needs " + layout.usedSectors() + " sectors; "
                    + device.describe() + " has " + device.sectorCount());
        }
    }

    public VolumeLayout layout() {
        return layout;
    }

    public long token() {
        return token;
    }

    /** The namespace, for messages. */
    public String describe() {
        return device.describe();
    }

    /** Reads {@code dst.remaining()} bytes at {@code offset} of {@code block}; moves {@code dst}'s position on success. */
    public CompletableFuture<Void> read(long block, int offset, ByteBuffer dst) {
        long at;
        try {
            at = position(block, offset, dst.remaining());
        } catch (NvmfException e) {
            return CompletableFuture.failedFuture(e);
        }
        return bytes.read(at, dst);
    }

    /** Writes {@code src.remaining()} bytes at {@code offset} of {@code block}; moves {@code src}'s position on success. */
    public CompletableFuture<Void> write(long block, int offset, ByteBuffer src) {
        long at;
        try {
            at = position(block, offset, src.remaining());
        } catch (NvmfException e) {
            return CompletableFuture.failedFuture(e);
        }
        return bytes.write(at, src);
    }

    /** What {@code block}'s tag sector holds. */
    public CompletableFuture<TagSector.Reading> readTag(long block) {
        long sector;
        try {
            sector = tagSector(block);
        } catch (NvmfException e) {
            return CompletableFuture.failedFuture(e);
        }
        ByteBuffer b = ByteBuffer.allocate(layout.sectorSize());
        return device.read(sector, b).thenApply(v -> TagSector.decode(b, token, block));
    }

    /** Writes {@code block}'s tag sector, whole. */
    public CompletableFuture<Void> writeTag(long block, long tag) {
        long sector;
        try {
            sector = tagSector(block);
        } catch (NvmfException e) {
            return CompletableFuture.failedFuture(e);
        }
        return device.write(sector, TagSector.encode(ByteBuffer.allocate(layout.sectorSize()), token, block, tag));
    }

    /** The header at sector 0 of {@code device}, or empty if it holds none. */
    public static CompletableFuture<Optional<VolumeHeader>> readHeader(SectorDevice device) {
        ByteBuffer b = ByteBuffer.allocate(device.sectorSize());
        return device.read(0, b).thenApply(v -> VolumeHeader.decode(b));
    }

    /** Writes {@code header} at sector 0 of {@code device}. */
    public static CompletableFuture<Void> writeHeader(SectorDevice device, VolumeHeader header) {
        return device.write(0, header.encode(ByteBuffer.allocate(device.sectorSize())));
    }

    private long tagSector(long block) {
        if (block < 0 || block >= layout.blockCount()) {
            throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "block " + block + " is not on the volume of "
                    + device.describe() + " (blocks 0.." + (layout.blockCount() - 1) + ")");
        }
        return layout.tagSectorOf(block);
    }

    private long position(long block, int offset, int length) {
        tagSector(block);
        if (offset < 0 || (long) offset + length > layout.blockSize()) {
            throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, "range " + offset + "+" + length + " of block "
                    + block + " exceeds the block size " + layout.blockSize());
        }
        return layout.byteOf(block, offset);
    }
}
