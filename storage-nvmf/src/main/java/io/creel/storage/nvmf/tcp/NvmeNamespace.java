package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.SectorDevice;
import io.creel.storage.nvmf.nvme.IdentifyNamespace;
import io.creel.storage.nvmf.nvme.NvmeCommands;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One namespace of a connected controller, read and written in whole logical blocks through the
 * controller's I/O queues. Requests must be sector-aligned and at most {@link #maxTransferBytes()};
 * {@link io.creel.storage.nvmf.io.ByteRangeIo} lifts both limits.
 */
public final class NvmeNamespace implements SectorDevice {
    private final NvmeTcpController controller;
    private final IdentifyNamespace identity;
    private final int maxTransferBytes;
    private final String description;

    NvmeNamespace(NvmeTcpController controller, IdentifyNamespace identity) {
        this.controller = controller;
        this.identity = identity;
        int sector = identity.lbaDataSize();
        // one command moves at most 65536 blocks (NLB is 16 bits), and at least one block must fit
        long max = Math.min((long) controller.maxTransferBytes(), 65536L * sector);
        this.maxTransferBytes = (int) Math.max(sector, max / sector * sector);
        this.description = "namespace " + identity.nsid() + " of " + controller.endpoint();
    }

    public int nsid() {
        return identity.nsid();
    }

    public IdentifyNamespace identity() {
        return identity;
    }

    public NvmeTcpController controller() {
        return controller;
    }

    @Override
    public int sectorSize() {
        return identity.lbaDataSize();
    }

    @Override
    public long sectorCount() {
        return identity.size();
    }

    @Override
    public int maxTransferBytes() {
        return maxTransferBytes;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public CompletableFuture<Void> read(long sector, ByteBuffer... dst) {
        int blocks;
        try {
            blocks = blocks(sector, dst, "read");
        } catch (NvmfException e) {
            return CompletableFuture.failedFuture(e);
        }
        return controller.io(NvmeCommands.read(identity.nsid(), sector, blocks, dst));
    }

    @Override
    public CompletableFuture<Void> write(long sector, ByteBuffer... src) {
        int blocks;
        try {
            blocks = blocks(sector, src, "write");
        } catch (NvmfException e) {
            return CompletableFuture.failedFuture(e);
        }
        return controller.io(NvmeCommands.write(identity.nsid(), sector, blocks, src));
    }

    /** Asks the controller to make written data durable (NVM Flush). */
    public CompletableFuture<Void> flush() {
        return controller.io(NvmeCommands.flush(identity.nsid()));
    }

    private int blocks(long sector, ByteBuffer[] buffers, String op) {
        long bytes = 0;
        for (ByteBuffer b : buffers) {
            bytes += b.remaining();
        }
        int size = sectorSize();
        if (bytes == 0 || bytes % size != 0 || bytes > maxTransferBytes) {
            throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "%s of %d bytes at sector %d of %s: must be a non-zero multiple of the %d-byte sector and at most "
                            + "%d bytes", op, bytes, sector, description, size, maxTransferBytes));
        }
        long blocks = bytes / size;
        if (sector < 0 || sector + blocks > sectorCount()) {
            throw new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "%s of sectors %d..%d of %s, which has %d sectors", op, sector, sector + blocks - 1,
                    description, sectorCount()));
        }
        return (int) blocks;
    }

    @Override
    public String toString() {
        return description;
    }
}
