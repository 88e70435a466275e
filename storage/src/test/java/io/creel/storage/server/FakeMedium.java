package io.creel.storage.server;

import io.creel.storage.spi.BlockMedium;
import java.nio.ByteBuffer;

/** Blocks in one heap or direct buffer. */
final class FakeMedium implements BlockMedium {
    private final ByteBuffer bytes;
    private final int blockSize;
    private final long blockCount;

    FakeMedium(ByteBuffer bytes, int blockSize) {
        this.bytes = bytes;
        this.blockSize = blockSize;
        this.blockCount = bytes.capacity() / blockSize;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public long blockCount() {
        return blockCount;
    }

    @Override
    public void read(long block, int offset, ByteBuffer dst) {
        dst.put(bytes.slice(Math.toIntExact(block * blockSize + offset), dst.remaining()));
    }

    @Override
    public void write(long block, int offset, ByteBuffer src) {
        bytes.put(Math.toIntExact(block * blockSize + offset), src, src.position(), src.remaining());
        src.position(src.limit());
    }

    @Override
    public String describe() {
        return (bytes.isDirect() ? "direct" : "heap") + " buffer";
    }

    @Override
    public void force() {
        // nothing outlives the process
    }

    @Override
    public void close() {
        // the buffer is the garbage collector's
    }
}
