package io.creel.storage.nvmf.target;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.SectorDevice;
import io.creel.storage.nvmf.tcp.NvmeTcpController;
import java.util.concurrent.CompletableFuture;

/** A controller reached over NVMe/TCP: this module's initiator. */
final class TcpTargetController implements TargetController {
    private final TargetAddress address;
    private final NvmeTcpController controller;

    TcpTargetController(TargetAddress address, NvmeTcpController controller) {
        this.address = address;
        this.controller = controller;
    }

    @Override
    public TargetAddress address() {
        return address;
    }

    @Override
    public CompletableFuture<SectorDevice> namespace(int nsid) {
        return controller.namespace(nsid).thenApply(ns -> ns);
    }

    @Override
    public CompletableFuture<NvmfException> failure() {
        return controller.failure();
    }

    @Override
    public boolean isAlive() {
        return controller.isAlive();
    }

    @Override
    public String describe() {
        return controller + ": " + controller.identity().model().trim() + " " + controller.identity().serial().trim()
                + ", " + controller.liveIoQueues() + " I/O queues, largest transfer " + controller.maxTransferBytes()
                + " bytes, digests header " + controller.headerDigest() + " data " + controller.dataDigest();
    }

    @Override
    public void close() {
        controller.close();
    }

    @Override
    public String toString() {
        return controller.toString();
    }
}
