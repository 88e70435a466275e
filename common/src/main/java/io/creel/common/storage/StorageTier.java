package io.creel.common.storage;

/**
 * A storage medium a storage server can export: found by name through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.creel.common.storage.StorageTier}), so the storage-server runtime
 * never names a concrete tier.
 */
public interface StorageTier {
    /** The tier's name, as given to {@code bin/creel datanode --tier NAME}: "dram", "disk", ... */
    String name();

    /**
     * Prepares the medium and starts serving block reads and writes. The tier reads its own
     * settings (size, path, ...) from the context's configuration.
     */
    StorageService start(StorageTierContext context);
}
