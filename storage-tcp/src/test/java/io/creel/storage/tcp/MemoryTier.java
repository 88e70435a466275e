package io.creel.storage.tcp;

import io.creel.common.conf.ConfKeys;
import io.creel.storage.StorageKeys;
import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.StorageTier;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The "memory" tier: {@value #BLOCK_COUNT} blocks of the configured size in a direct buffer, so the
 * TCP exporter is tested on a real storage server without any file-backed tier. Tests reach the
 * volume a server opened through the host id they opened it with.
 */
public final class MemoryTier implements StorageTier {
    static final int BLOCK_COUNT = 8;

    private static final Map<String, Memory> OPENED = new ConcurrentHashMap<>();

    /** The volume of the server opened with {@code hostId}. */
    static Memory volume(String hostId) {
        Memory m = OPENED.get(hostId);
        if (m == null) {
            throw new AssertionError("no memory server was opened for host " + hostId);
        }
        return m;
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public Volume open(TierContext context) {
        context.listen(context.conf().get(StorageKeys.PORT));
        Memory m = new Memory((int) (long) context.conf().get(ConfKeys.BLOCK_SIZE));
        OPENED.put(context.hostId(), m);
        return m;
    }

    /** The volume: its medium, whose next I/O a test can make fail or interleave with, and its tags. */
    static final class Memory implements Volume {
        final MemoryMedium medium;
        final BlockTags tags = new BlockTags(ByteBuffer.allocateDirect(BLOCK_COUNT * 8), BLOCK_COUNT);

        Memory(int blockSize) {
            medium = new MemoryMedium(ByteBuffer.allocateDirect(blockSize * BLOCK_COUNT), blockSize);
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
            return 0x6d656d6fL;
        }

        @Override
        public Map<String, String> attributes() {
            return Map.of("memory.blocks", String.valueOf(BLOCK_COUNT));
        }

        @Override
        public String summary() {
            return "memory volume of " + BLOCK_COUNT + " blocks";
        }

        @Override
        public void close() {
            // the direct buffer goes with the garbage collector
        }
    }
}
