package io.creel.storage.tcp;

import io.creel.storage.spi.BlockMedium;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Blocks in a direct buffer. A test can make its next I/O fail, or run something between the copy
 * and the server's second tag check (as if the block were reused meanwhile); and can have it offer
 * its memory, as a DRAM medium does, so reads are sent from it without a copy.
 */
final class MemoryMedium implements BlockMedium {
    private final ByteBuffer bytes;
    private final int blockSize;
    private volatile IOException nextFailure;
    private volatile Runnable duringNextRead;
    private volatile boolean inMemory;

    MemoryMedium(ByteBuffer bytes, int blockSize) {
        this.bytes = bytes;
        this.blockSize = blockSize;
    }

    /** The next read or write fails with {@code e}. */
    void failNext(IOException e) {
        nextFailure = e;
    }

    /** {@code r} runs while the next read copies. */
    void duringNextRead(Runnable r) {
        duringNextRead = r;
    }

    /**
     * Whether the medium offers its memory ({@link #memory}), so the server sends reads straight from
     * it; then the {@link #duringNextRead} action runs once the server has its view, before it sends.
     */
    void serveFromMemory(boolean on) {
        inMemory = on;
    }

    /** The bytes at {@code offset} of {@code block}, as the server holds them. */
    byte[] get(long block, int offset, int length) {
        byte[] out = new byte[length];
        bytes.get(Math.toIntExact(block * blockSize + offset), out);
        return out;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public long blockCount() {
        return bytes.capacity() / blockSize;
    }

    @Override
    public void read(long block, int offset, ByteBuffer dst) throws IOException {
        failIfTold();
        dst.put(bytes.slice(Math.toIntExact(block * blockSize + offset), dst.remaining()));
        Runnable r = duringNextRead;
        duringNextRead = null;
        if (r != null) {
            r.run();
        }
    }

    @Override
    public ByteBuffer memory(long block, int offset, int length) {
        if (!inMemory) {
            return null;
        }
        ByteBuffer view = bytes.slice(Math.toIntExact(block * blockSize + offset), length);
        Runnable r = duringNextRead;
        duringNextRead = null;
        if (r != null) {
            r.run();
        }
        return view;
    }

    @Override
    public void write(long block, int offset, ByteBuffer src) throws IOException {
        failIfTold();
        bytes.put(Math.toIntExact(block * blockSize + offset), src, src.position(), src.remaining());
        src.position(src.limit());
    }

    private void failIfTold() throws IOException {
        IOException e = nextFailure;
        nextFailure = null;
        if (e != null) {
            throw e;
        }
    }

    @Override
    public String describe() {
        return "direct buffer";
    }

    @Override
    public void force() {
        // nothing outlives the process
    }

    @Override
    public void close() {
        // the buffer goes with the garbage collector
    }
}
