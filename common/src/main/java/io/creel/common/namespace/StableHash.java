package io.creel.common.namespace;

import java.nio.charset.StandardCharsets;

/**
 * A hash of names that is the same in every JVM and every release (unlike {@link String#hashCode}
 * on some runtimes, and unlike anything seeded): 64-bit FNV-1a over the UTF-8 bytes. It decides
 * which namenode partition owns a top-level name, so it must never change.
 */
public final class StableHash {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private StableHash() {
    }

    public static long hash(String name) {
        long h = FNV_OFFSET;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= FNV_PRIME;
        }
        return h;
    }

    /** The partition of {@code topLevelName} among {@code partitions} namenodes. */
    public static int partition(String topLevelName, int partitions) {
        return (int) Long.remainderUnsigned(hash(topLevelName), partitions);
    }
}
