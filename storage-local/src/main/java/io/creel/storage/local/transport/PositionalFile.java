package io.creel.storage.local.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.OpenOption;

/**
 * A server's file opened by a same-host client for positional reads (and writes), that survives the
 * interrupts of its callers.
 *
 * <p>Transfers run on the caller's thread, and a {@link FileChannel} closes itself for everyone when
 * a thread blocked in it is interrupted. One interrupted application thread must not break the
 * transport of the whole process, so the channel is opened again on the next use; the interrupted
 * transfer itself fails with {@link ClosedByInterruptException} for its caller to handle.
 */
final class PositionalFile implements AutoCloseable {
    private final Path path;
    private final OpenOption[] options;
    private volatile FileChannel channel;
    private boolean closed;

    PositionalFile(Path path, OpenOption... options) throws IOException {
        this.path = path;
        this.options = options.clone();
        this.channel = FileChannel.open(path, options);
    }

    Path path() {
        return path;
    }

    /** Fills {@code dst} from {@code position}; fails if the file ends first. */
    void readFully(ByteBuffer dst, long position) throws IOException {
        FileChannel ch = channel();
        long pos = position;
        while (dst.hasRemaining()) {
            int n = ch.read(dst, pos);
            if (n < 0) {
                throw new IOException(path + " ends before byte " + pos);
            }
            pos += n;
        }
    }

    /** Writes all of {@code src} at {@code position}. */
    void writeFully(ByteBuffer src, long position) throws IOException {
        FileChannel ch = channel();
        long pos = position;
        while (src.hasRemaining()) {
            pos += ch.write(src, pos);
        }
    }

    private FileChannel channel() throws IOException {
        FileChannel ch = channel;
        if (ch.isOpen()) {
            return ch;
        }
        synchronized (this) {
            if (closed) {
                throw new ClosedChannelException();
            }
            if (!channel.isOpen()) {
                channel = FileChannel.open(path, options); // closed by an interrupted caller, not by us
            }
            return channel;
        }
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        channel.close();
    }
}
