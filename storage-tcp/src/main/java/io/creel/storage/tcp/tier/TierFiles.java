package io.creel.storage.tcp.tier;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/** Shared start-up chores of the tiers: sizing, the directory, unique file names, the token. */
final class TierFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

    private TierFiles() {
    }

    /** Whole blocks in {@code size} bytes; fewer than one is a configuration error naming the key. */
    static long blockCount(ConfKey<Long> sizeKey, long size, int blockSize) {
        long count = size / blockSize;
        if (count < 1) {
            throw new CreelException(ErrorCode.CONFIGURATION, sizeKey.name() + " (" + ConfValues.formatSize(size)
                    + ") is smaller than one block (creel.block.size " + ConfValues.formatSize(blockSize) + ")");
        }
        return count;
    }

    /** Creates the directory if needed and checks it is writable. */
    static Path directory(ConfKey<String> key, String value) {
        Path dir = Path.of(value).toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, key.name() + ": cannot create directory " + dir + ": "
                    + e, e);
        }
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new CreelException(ErrorCode.CONFIGURATION, key.name() + ": " + dir + " is not a writable directory");
        }
        return dir;
    }

    /** {@code prefix-port-random}: unique per server instance, even for several servers on one port over time. */
    static String uniqueName(String prefix, int port) {
        return prefix + "-" + port + "-" + Long.toHexString(RANDOM.nextLong() >>> 1);
    }

    /** A random nonzero token identifying this server start in its tag file. */
    static long token() {
        long t;
        do {
            t = RANDOM.nextLong();
        } while (t == 0);
        return t;
    }
}
