package io.creel.storage.nvmf.target;

import java.util.concurrent.CompletableFuture;

/** Connects controllers over one fabric. */
public interface TargetConnector extends AutoCloseable {
    /** The fabric this connector speaks. */
    Fabric fabric();

    /**
     * Connects to {@code address} and enables a controller: Fabrics Connect of the admin queue,
     * controller enable, Identify Controller, the I/O queues. Fails with a
     * {@link io.creel.storage.nvmf.NvmfException} naming the target and the step.
     */
    CompletableFuture<TargetController> connect(TargetAddress address, TargetOptions options);

    /** Releases what the connector owns (event loops, threads); controllers it made must be closed first. */
    @Override
    void close();
}
