package io.creel.hadoop;

import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.io.NodeInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;

/**
 * The stream behind {@code open}: reads a Creel File (or KeyValue) up to the length it had when it
 * was opened, like HDFS. Sequential reads go through a buffered stream that reads one buffer ahead;
 * positioned reads ({@link #read(long, byte[], int, int)}, {@link #read(long, ByteBuffer)}) go
 * straight to the storage servers, never move the stream position, and may run concurrently.
 * {@link #unbuffer()} drops the buffers (they come back on the next read).
 */
final class CreelInputStream extends FSInputStream
        implements ByteBufferReadable, ByteBufferPositionedReadable, CanUnbuffer, StreamCapabilities {
    /** Direct-buffer reads smaller than this are served from the read-ahead buffer. */
    private static final int SMALL_DIRECT_READ = 64 << 10;

    private final String path;
    private final CreelNode node;
    private final DirectReader positioned;
    private final long length;
    private final Duration timeout;
    private final FileSystem.Statistics statistics;
    /** The buffered sequential stream, made on first use and dropped by {@link #unbuffer()}. */
    private NodeInputStream buffered;
    private long pos;
    private volatile boolean closed;

    CreelInputStream(CreelNode node, Duration timeout, FileSystem.Statistics statistics) {
        this.path = node.path();
        this.node = node;
        this.positioned = node.reader();
        this.length = node.length();
        this.timeout = timeout;
        this.statistics = statistics;
    }

    @Override
    public synchronized void seek(long target) throws IOException {
        ensureOpen();
        if (target < 0) {
            throw new EOFException(path + ": " + FSExceptionMessages.NEGATIVE_SEEK + " " + target);
        }
        if (target > length) {
            throw new EOFException(path + ": " + FSExceptionMessages.CANNOT_SEEK_PAST_EOF + " (seek to " + target
                    + ", length " + length + ")");
        }
        pos = target;
    }

    @Override
    public synchronized long getPos() {
        return pos;
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
        return false; // one copy of every block: there is no other source
    }

    @Override
    public synchronized int available() throws IOException {
        ensureOpen();
        return (int) Math.min(Integer.MAX_VALUE, length - pos);
    }

    @Override
    public synchronized long skip(long n) throws IOException {
        ensureOpen();
        if (n <= 0) {
            return 0;
        }
        long target = Math.min(length, pos + n);
        long skipped = target - pos;
        pos = target;
        return skipped;
    }

    @Override
    public synchronized int read() throws IOException {
        ensureOpen();
        if (pos >= length) {
            return -1;
        }
        int b = stream().read();
        if (b >= 0) {
            pos++;
            count(1);
        }
        return b;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (pos >= length) {
            return -1;
        }
        int n = stream().read(b, off, len);
        if (n > 0) {
            pos += n;
            count(n);
        }
        return n;
    }

    /** Reads at the stream position into {@code buf}; direct buffers of some size are filled without a copy. */
    @Override
    public synchronized int read(ByteBuffer buf) throws IOException {
        ensureOpen();
        if (!buf.hasRemaining()) {
            return 0;
        }
        if (pos >= length) {
            return -1;
        }
        if (buf.hasArray()) {
            int n = read(buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
            if (n > 0) {
                buf.position(buf.position() + n);
            }
            return n;
        }
        if (buf.remaining() < SMALL_DIRECT_READ) {
            byte[] tmp = new byte[buf.remaining()];
            int n = read(tmp, 0, tmp.length);
            if (n > 0) {
                buf.put(tmp, 0, n);
            }
            return n;
        }
        int n = readAt(pos, buf);
        if (n > 0) {
            pos += n;
        }
        return n;
    }

    @Override
    public int read(long position, byte[] buffer, int offset, int len) throws IOException {
        ensureOpen();
        validatePositionedReadArgs(position, buffer, offset, len);
        if (len == 0) {
            return 0;
        }
        return readAt(position, ByteBuffer.wrap(buffer, offset, len));
    }

    @Override
    public int read(long position, ByteBuffer buf) throws IOException {
        ensureOpen();
        if (position < 0) {
            throw new EOFException(path + ": " + FSExceptionMessages.NEGATIVE_SEEK + " " + position);
        }
        if (!buf.hasRemaining()) {
            return 0;
        }
        return readAt(position, buf);
    }

    @Override
    public void readFully(long position, ByteBuffer buf) throws IOException {
        ensureOpen();
        if (position < 0) {
            throw new EOFException(path + ": " + FSExceptionMessages.NEGATIVE_SEEK + " " + position);
        }
        if (position + buf.remaining() > length) {
            throw new EOFException(path + ": " + FSExceptionMessages.EOF_IN_READ_FULLY + " (reading "
                    + buf.remaining() + " bytes at " + position + ", length " + length + ")");
        }
        while (buf.hasRemaining()) {
            int n = readAt(position, buf);
            if (n < 0) {
                throw new EOFException(path + ": " + FSExceptionMessages.EOF_IN_READ_FULLY);
            }
            position += n;
        }
    }

    /** Reads up to {@code dst.remaining()} bytes at {@code position}, straight from storage; -1 at the end. */
    private int readAt(long position, ByteBuffer dst) throws IOException {
        if (position >= length) {
            return -1;
        }
        ByteBuffer view = dst.remaining() > length - position
                ? dst.slice(dst.position(), (int) (length - position)) : dst;
        int n = HadoopErrors.await(positioned.read(position, view), timeout, path + ": reading at " + position);
        if (view != dst && n > 0) {
            dst.position(dst.position() + n);
        }
        if (n > 0) {
            count(n);
        }
        return n;
    }

    private NodeInputStream stream() throws IOException {
        if (buffered == null) {
            buffered = node.inputStream();
        }
        if (buffered.position() != pos) {
            buffered.seek(pos);
        }
        return buffered;
    }

    private void count(int n) {
        if (statistics != null) {
            statistics.incrementBytesRead(n);
        }
    }

    /** Drops the read-ahead buffers; the next read fetches again from the current position. */
    @Override
    public synchronized void unbuffer() {
        if (buffered != null) {
            buffered.close();
            buffered = null;
        }
    }

    @Override
    public boolean hasCapability(String capability) {
        return switch (capability.toLowerCase(Locale.ROOT)) {
            case StreamCapabilities.UNBUFFER, StreamCapabilities.READBYTEBUFFER,
                 StreamCapabilities.PREADBYTEBUFFER -> true;
            default -> false;
        };
    }

    @Override
    public synchronized void close() {
        closed = true;
        unbuffer();
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(path + ": " + FSExceptionMessages.STREAM_IS_CLOSED);
        }
    }

    @Override
    public String toString() {
        return "CreelInputStream{" + path + ", length " + length + ", pos " + pos + (closed ? ", closed}" : "}");
    }
}
