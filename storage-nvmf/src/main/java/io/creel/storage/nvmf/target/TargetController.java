package io.creel.storage.nvmf.target;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.SectorDevice;
import java.util.concurrent.CompletableFuture;

/**
 * A connected, enabled NVMe-oF controller, whatever the fabric: its namespaces as
 * {@link SectorDevice}s, and the end of the association. Thread-safe; futures complete on the
 * controller's own threads, so callbacks must not block.
 */
public interface TargetController extends AutoCloseable {
    /** Where it is. */
    TargetAddress address();

    /**
     * Identifies namespace {@code nsid} (size, sector size, largest transfer) and returns it ready for
     * I/O; fails with {@link NvmfException.Kind#INVALID_ARGUMENT} for an inactive namespace or one whose
     * format carries metadata.
     */
    CompletableFuture<SectorDevice> namespace(int nsid);

    /** Completes with the reason when the association is lost (connection, keep alive) or closed. */
    CompletableFuture<NvmfException> failure();

    /** Whether the controller is still usable. */
    boolean isAlive();

    /** One line for logs: model, serial, queues, largest transfer. */
    String describe();

    /** Shuts the controller down and closes its queues; outstanding commands fail. */
    @Override
    void close();
}
