package io.creel.storage.local.tier;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.StorageKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusive claim of a persistent storage server on its directory: {@code <tier>.lock}, locked
 * with {@link FileChannel#tryLock} for as long as the server runs, and holding the port the server
 * listened on (part of its identity in the namenodes' block locations).
 *
 * <p>The lock is on a file of its own, not on the data files: a POSIX lock is dropped when any
 * descriptor of its file in the process closes, and same-host clients open the data files.
 */
final class TierLock implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TierLock.class);
    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private TierLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /** Locks {@code dir} for one server of {@code tier}, or fails with CONFIGURATION if another holds it. */
    static TierLock acquire(Path dir, String tier) {
        Path file = dir.resolve(tier + ".lock");
        FileChannel ch;
        try {
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot open " + file + ": " + e, e);
        }
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            close(ch);
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot lock " + file + ": " + e, e);
        }
        if (lock == null) {
            close(ch);
            throw new CreelException(ErrorCode.CONFIGURATION, dir + " is in use by another " + tier
                    + " storage server (" + file + " is locked); with " + StorageKeys.PERSISTENT.name()
                    + " every server needs a directory of its own");
        }
        return new TierLock(file, ch, lock);
    }

    /**
     * The port to listen on: the configured one, else (0) the one remembered from the last run, else
     * 0 (a free one, remembered by {@link #rememberPort}).
     */
    int portToBind(int configured) {
        if (configured != 0) {
            return configured;
        }
        try {
            ByteBuffer b = ByteBuffer.allocate(16);
            while (b.hasRemaining() && channel.read(b, b.position()) > 0) {
                // read the whole (short) file
            }
            String text = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
            if (text.isEmpty()) {
                return 0;
            }
            int port = Integer.parseInt(text);
            if (port < 1 || port > 65535) {
                throw new NumberFormatException("out of range");
            }
            return port;
        } catch (IOException | NumberFormatException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, file + " should hold the port of the last run: " + e, e);
        }
    }

    /** Remembers the port for the next start. */
    void rememberPort(int port) throws IOException {
        channel.truncate(0);
        ByteBuffer b = ByteBuffer.wrap((port + "\n").getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            channel.write(b, b.position());
        }
        channel.force(true);
    }

    Path file() {
        return file;
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            LOG.debug("releasing {} failed ({}); closing the channel releases it", file, e.toString());
        }
        close(channel);
    }

    private static void close(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            LOG.debug("closing a lock file failed: {}", e.toString());
        }
    }
}
