package io.creel.storage.local.tier;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfValues;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.StorageKeys;
import io.creel.storage.format.TagFile;
import io.creel.storage.spi.TierContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Shared start-up chores of the tiers: sizing, the directory, unique file names, the token. */
final class TierFiles {
    private static final Logger LOG = LoggerFactory.getLogger(TierFiles.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private TierFiles() {
    }

    /** Whole blocks in {@code size} bytes; fewer than one is a configuration error naming the key. */
    static long blockCount(ConfKey<Long> sizeKey, long size, int blockSize) {
        long count = size / blockSize;
        if (count < 1) {
            throw new CreelException(ErrorCode.CONFIGURATION, sizeKey.name() + " (" + ConfValues.formatSize(size)
                    + ") is smaller than one block (" + ConfValues.formatSize(blockSize) + ")");
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
                    h.blockSize()) + " but this server's block size (creel.storage.block.size, else creel.block.size) is "
                    + ConfValues.formatSize(blockSize)
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
     * Binds a persistent server's port: the configured one, else the one it had last time (remembered
     * in its lock file), else a free one. When the remembered port is taken now, says so: the port is
     * part of the server's identity, so another one will not do.
     */
    static int listenOnRememberedPort(TierLock lock, TierContext ctx) {
        int configured = ctx.conf().get(StorageKeys.PORT);
        int port = lock.portToBind(configured);
        try {
            return ctx.listen(port);
        } catch (CreelException e) {
            if (e.code() == ErrorCode.UNAVAILABLE && configured == 0 && port != 0) {
                throw new CreelException(ErrorCode.CONFIGURATION, "port " + port + " (this persistent server's port, "
                        + "remembered in " + lock.file() + ") cannot be bound again: " + e.getMessage()
                        + "; free it, or set creel.storage.port", e);
            }
            throw e;
        }
    }

    /** The error to stop the start with when preparing a tier's files failed. */
    static RuntimeException cannotPrepare(String tier, Exception e) {
        if (e instanceof RuntimeException r) {
            return r;
        }
        return new CreelException(ErrorCode.CONFIGURATION, tier + " storage: cannot prepare the medium: " + e, e);
    }

    /** Deletes a half-made file after a failed start; a failure to delete is only logged. */
    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete {} after a failed start: {}", file, e.toString());
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
