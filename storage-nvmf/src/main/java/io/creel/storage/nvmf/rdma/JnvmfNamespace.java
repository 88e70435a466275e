package io.creel.storage.nvmf.rdma;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.SectorDevice;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** One namespace of a {@link JnvmfController}, read and written in whole sectors over RDMA. */
final class JnvmfNamespace implements SectorDevice {
    private final JnvmfController controller;
    private final int nsid;
    private final int sectorSize;
    private final long sectorCount;
    private final int maxTransfer;
    private final String description;

    JnvmfNamespace(JnvmfController controller, int nsid, int sectorSize, long sectorCount, int maxTransfer) {
        this.controller = controller;
        this.nsid = nsid;
        this.sectorSize = sectorSize;
        this.sectorCount = sectorCount;
        this.maxTransfer = maxTransfer;
        this.description = "namespace " + nsid + " of " + controller.address();
    }

    @Override
    public int sectorSize() {
        return sectorSize;
    }

    @Override
    public long sectorCount() {
        return sectorCount;
    }

    @Override
    public int maxTransferBytes() {
        return maxTransfer;
    }

    @Override
    public CompletableFuture<Void> read(long sector, ByteBuffer... dst) {
        return command(false, sector, dst);
    }

    @Override
    public CompletableFuture<Void> write(long sector, ByteBuffer... src) {
        return command(true, sector, src);
    }

    private CompletableFuture<Void> command(boolean write, long sector, ByteBuffer[] buffers) {
        long bytes = 0;
        for (ByteBuffer b : buffers) {
            bytes += b.remaining();
        }
        String op = write ? "write" : "read";
        if (bytes == 0 || bytes % sectorSize != 0 || bytes > maxTransfer) {
            return CompletableFuture.failedFuture(new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "%s of %d bytes at sector %d of %s: must be a non-zero multiple of the %d-byte sector and at most "
                            + "%d bytes", op, bytes, sector, description, sectorSize, maxTransfer)));
        }
        int blocks = (int) (bytes / sectorSize);
        if (sector < 0 || sector + blocks > sectorCount) {
            return CompletableFuture.failedFuture(new NvmfException(NvmfException.Kind.INVALID_ARGUMENT, String.format(
                    "%s of sectors %d..%d of %s, which has %d sectors", op, sector, sector + blocks - 1, description,
                    sectorCount)));
        }
        return controller.io(new JnvmfQueue.Op(write, nsid, sector, blocks, (int) bytes, buffers,
                new CompletableFuture<>()));
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String toString() {
        return description;
    }
}
