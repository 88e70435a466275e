package io.creel.storage.spi;

/**
 * A kind of medium a storage server can export in blocks — a DRAM region, a disk file, an NVMe-oF
 * namespace. Found by name through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.creel.storage.spi.StorageTier}), so the storage-server runtime never
 * names a concrete tier. A tier declares its own configuration keys through a
 * {@link io.creel.common.conf.ConfKeySource}.
 */
public interface StorageTier {
    /** The tier's name, as given to {@code bin/creel datanode --tier NAME}: "dram", "disk", ... */
    String name();

    /**
     * Prepares the medium and returns it as a {@link Volume}. The tier reads its own settings from the
     * context's configuration, and calls {@link TierContext#listen} once, before it needs the server's
     * port (file names may carry it; a persistent tier binds the port it had before).
     */
    Volume open(TierContext context);
}
