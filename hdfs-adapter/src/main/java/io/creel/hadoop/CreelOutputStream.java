package io.creel.hadoop;

import io.creel.client.io.NodeOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;

/**
 * The stream behind {@code create} and {@code append}: a buffered writer of one Creel File under its
 * write lease. {@link #hflush()} and {@link #hsync()} publish everything written so far (a Creel
 * COMMIT without close), so a reader opened afterwards sees those bytes; {@link #close()} publishes
 * and releases the lease.
 *
 * <p>Both calls make the bytes visible and stored on the storage servers, which for Creel's
 * DRAM and disk tiers is as durable as the data ever gets (Creel keeps temporary data; it does not
 * replicate), so hsync promises nothing that hflush does not.
 */
final class CreelOutputStream extends OutputStream implements Syncable, StreamCapabilities {
    private final String path;
    private final NodeOutputStream out;
    private boolean closed;

    CreelOutputStream(String path, NodeOutputStream out) {
        this.path = path;
        this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        out.write(b, off, len);
    }

    /** Waits until the bytes written so far are stored; readers see them after {@link #hflush()}. */
    @Override
    public void flush() throws IOException {
        if (!closed) {
            out.flush();
        }
    }

    @Override
    public void hflush() throws IOException {
        ensureOpen();
        out.sync();
    }

    @Override
    public void hsync() throws IOException {
        hflush();
    }

    @Override
    public boolean hasCapability(String capability) {
        return switch (capability.toLowerCase(Locale.ROOT)) {
            case StreamCapabilities.HFLUSH, StreamCapabilities.HSYNC -> true;
            default -> false;
        };
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        out.close();
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(path + ": " + org.apache.hadoop.fs.FSExceptionMessages.STREAM_IS_CLOSED);
        }
    }

    @Override
    public String toString() {
        return "CreelOutputStream{" + path + (closed ? ", closed}" : "}");
    }
}
