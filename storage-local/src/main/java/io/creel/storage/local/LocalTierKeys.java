package io.creel.storage.local;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.util.List;

/**
 * The keys of the DRAM and disk tiers and of the same-host transports that reach them.
 * Registered as a {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class LocalTierKeys implements ConfKeySource {
    public static final ConfKey<String> DRAM_PATH = ConfKey.of("creel.storage.dram.path", "/dev/shm/creel",
            ConfValues::nonEmpty,
            "Directory holding DRAM region files; a tmpfs, so same-host clients can map them.");
    public static final ConfKey<Long> DRAM_SIZE = ConfKey.of("creel.storage.dram.size", "1g",
            ConfValues::parseSize, "Bytes a DRAM storage server exports.");
    public static final ConfKey<Boolean> DRAM_PREALLOCATE = ConfKey.of("creel.storage.dram.preallocate", "true",
            ConfValues::parseBoolean,
            "Allocate a new DRAM region's memory when the server starts: a tmpfs too small fails the start, and "
                    + "first writes to a block do not pay for allocating its pages.");
    public static final ConfKey<String> DISK_PATH = ConfKey.of("creel.storage.disk.path", "/tmp/creel-disk",
            ConfValues::nonEmpty, "Directory holding the disk tier's data file.");
    public static final ConfKey<Long> DISK_SIZE = ConfKey.of("creel.storage.disk.size", "4g",
            ConfValues::parseSize, "Bytes a disk storage server exports.");
    public static final ConfKey<String> DISK_DIRECT = ConfKey.of("creel.storage.disk.direct", "auto",
            v -> ConfValues.oneOf(v, "auto", "true", "false"),
            "O_DIRECT for the disk tier: auto (use it where the filesystem allows), true (required), false.");
    public static final ConfKey<Boolean> LOCAL_ACCESS = ConfKey.of("creel.client.local.access", "true",
            ConfValues::parseBoolean,
            "Read and write blocks of same-host storage servers through their files, without a server round trip.");

    public static final ConfKey<String> FILES_GROUP = ConfKey.of("creel.storage.files.group", "", v -> v.trim(),
            "Group that may read and write the DRAM and disk tiers' files (and so use the same-host transports); "
                    + "empty: only the storage server's user. Other users' clients fall back to TCP.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public LocalTierKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(DRAM_PATH, DRAM_SIZE, DRAM_PREALLOCATE, DISK_PATH, DISK_SIZE, DISK_DIRECT, LOCAL_ACCESS,
                FILES_GROUP);
    }
}
