package io.creel.storage.tcp.tier;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.conf.ConfKeys;
import io.creel.common.storage.StorageService;
import io.creel.common.storage.StorageTierContext;
import io.creel.common.storage.TagFile;
import java.util.function.Supplier;
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

    /**
     * The header of a persistent server's existing tag file, checked against the configuration: the
     * same block size and block count, so a changed size is an error rather than a silent truncation.
     */
    static TagFile.Header reopen(Path tagFile, ConfKey<Long> sizeKey, int blockSize, long blockCount)
            throws IOException {
        TagFile.Header h;
        try {
            h = TagFile.readHeader(tagFile);
        } catch (CreelException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot reuse " + tagFile + ": " + e.getMessage()
                    + "; remove it to start empty", e);
        }
        if (h.blockSize() != blockSize) {
            throw new CreelException(ErrorCode.CONFIGURATION, tagFile + " holds blocks of " + ConfValues.formatSize(
                    h.blockSize()) + " but creel.block.size is " + ConfValues.formatSize(blockSize)
                    + "; set it back or remove the server's files to start empty");
        }
        if (h.blockCount() != blockCount) {
            throw new CreelException(ErrorCode.CONFIGURATION, tagFile + " holds " + h.blockCount() + " blocks ("
                    + ConfValues.formatSize(h.blockCount() * blockSize) + ") but " + sizeKey.name() + " gives "
                    + blockCount + " (" + ConfValues.formatSize(blockCount * blockSize)
                    + "); a persistent server keeps its size: set it back or remove the server's files");
        }
        return h;
    }

    /** Checks that an existing file has exactly the expected size. */
    static void checkSize(Path file, long expected) throws IOException {
        long actual = Files.size(file);
        if (actual != expected) {
            throw new CreelException(ErrorCode.CONFIGURATION, file + " is " + actual + " bytes, expected " + expected
                    + " from its tag file; it was changed outside Creel, remove the server's files to start empty");
        }
    }

    /**
     * Starts a persistent server on {@code port}; when that port was remembered from the last run and
     * is taken now, says so (the port is part of the server's identity, so another one will not do).
     */
    static StorageService onRememberedPort(TierLock lock, int port, StorageTierContext ctx,
                                           Supplier<StorageService> start) {
        try {
            return start.get();
        } catch (CreelException e) {
            if (e.code() == ErrorCode.UNAVAILABLE && ctx.conf().get(ConfKeys.STORAGE_PORT) == 0 && port != 0) {
                throw new CreelException(ErrorCode.CONFIGURATION, "port " + port + " (this persistent server's port, "
                        + "remembered in " + lock.file() + ") cannot be bound again: " + e.getMessage()
                        + "; free it, or set creel.storage.port", e);
            }
            throw e;
        }
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
