package io.creel.storage.testkit;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.Volume;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A volume in memory for tests: blocks of bytes (each allocated, zeroed, at its first use) and the
 * real {@link BlockTags}, so a test server, or a fake transport reaching one, refuses a stale location
 * for the very reason a storage server does. Its transfers check the range ({@link BlockRanges}) and
 * then follow the {@link ServerRule}, and fail by throwing at once, as a same-host transport does.
 */
public final class MemoryVolume implements Volume, FakeServer {
    private final int blockSize;
    private final long blockCount;
    private final long token;
    private final BlockTags tags;
    private final Map<Long, ByteBuffer> blocks = new ConcurrentHashMap<>();
    private final Medium medium = new Medium();

    /** {@code blockCount} blocks of {@code blockSize} bytes; {@code token} is the volume's identity. */
    public MemoryVolume(int blockSize, long blockCount, long token) {
        this.blockSize = blockSize;
        this.blockCount = blockCount;
        this.token = token;
        this.tags = new BlockTags(ByteBuffer.allocateDirect(Math.toIntExact(blockCount * 8)), blockCount);
    }

    /** A volume the size {@code server} describes, with its token. */
    public static MemoryVolume of(StorageServerInfo server) {
        return new MemoryVolume(server.blockSize(), server.blockCount(), server.localToken());
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation at, int offset, ByteBuffer dst) {
        BlockRanges.check(at.server(), at, offset, dst.remaining());
        try {
            ServerRule.read(this, at, offset, dst, at.server().address() + " read");
        } catch (IOException e) {
            throw new UncheckedIOException("memory cannot fail to read", e); // its medium declares, never throws
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation at, int offset, ByteBuffer src) {
        BlockRanges.check(at.server(), at, offset, src.remaining());
        try {
            ServerRule.write(this, at, offset, src, at.server().address() + " write");
        } catch (IOException e) {
            throw new UncheckedIOException("memory cannot fail to write", e); // its medium declares, never throws
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Gives the block a new allocation, as a namenode reusing it would: locations with older tags become stale. */
    public void reallocate(long block, long newTag) {
        if (!tags.claim(block, newTag)) {
            throw new AssertionError("tag " + newTag + " is older than block " + block + "'s");
        }
    }

    /** Stores bytes directly, whatever the tag, as if an earlier writer had put them there. */
    public void put(long block, int offset, byte[] data) {
        block(block).put(offset, data);
    }

    /** The bytes there now, whatever the tag. */
    public byte[] get(long block, int offset, int length) {
        byte[] out = new byte[length];
        block(block).get(offset, out);
        return out;
    }

    private ByteBuffer block(long number) {
        if (number < 0 || number >= blockCount) {
            throw new IndexOutOfBoundsException("block " + number + " of a volume of " + blockCount);
        }
        return blocks.computeIfAbsent(number, n -> ByteBuffer.allocate(blockSize));
    }

    @Override
    public BlockMedium medium() {
        return medium;
    }

    @Override
    public BlockTags tags() {
        return tags;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public Map<String, String> attributes() {
        return Map.of();
    }

    @Override
    public String summary() {
        return "memory volume of " + blockCount + " blocks of " + blockSize + " bytes";
    }

    @Override
    public void close() {
        // the blocks are the garbage collector's
    }

    /** The blocks as a server's medium sees them: no tag checks here, the server makes them. */
    private final class Medium implements BlockMedium {
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
            dst.put(block(block).slice(offset, dst.remaining()));
        }

        @Override
        public void write(long block, int offset, ByteBuffer src) {
            block(block).put(offset, src, src.position(), src.remaining());
            src.position(src.limit());
        }

        @Override
        public String describe() {
            return "heap buffer";
        }

        @Override
        public void force() {
            // nothing outlives the process
        }

        @Override
        public void close() {
            // the blocks are the garbage collector's
        }
    }
}
