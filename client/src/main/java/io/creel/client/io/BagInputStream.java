package io.creel.client.io;

import io.creel.client.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A blocking {@link InputStream} over a {@link BagReader}: all files of a Bag as one stream. Each
 * wait is bounded by the request timeout; failures surface as {@link io.creel.client.CreelIOException}.
 */
public final class BagInputStream extends InputStream {
    private final BagReader reader;
    private final Duration timeout;
    private boolean closed;

    public BagInputStream(BagReader reader, Duration timeout) {
        this.reader = reader;
        this.timeout = timeout;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (closed) {
            throw new IOException("stream is closed");
        }
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        return Futures.awaitIo(reader.read(ByteBuffer.wrap(b, off, len)), timeout, "reading the Bag");
    }

    @Override
    public void close() {
        closed = true;
    }
}
