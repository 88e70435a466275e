package io.creel.storage.transport;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockRanges;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The blocks of pretend storage servers, kept the way a real server keeps them (bytes plus a tag per
 * block, checked with {@link BlockTags}), so fake transports move real bytes and a stale location is
 * refused for the same reason a server would refuse it.
 */
final class FakeServers {
    static final int BLOCK_SIZE = 4096;
    static final int BLOCK_COUNT = 8;

    private record Contents(ByteBuffer bytes, BlockTags tags) {
    }

    private final Map<String, Contents> servers = new ConcurrentHashMap<>();

    /** A server at {@code host:port} whose medium has identity {@code token}. */
    static StorageServerInfo server(String host, int port, long token) {
        return StorageServerInfo.of(0, "fake", "dram", host, port, "host-" + host, BLOCK_COUNT, BLOCK_SIZE, token,
                Map.of());
    }

    /** Block {@code number} of {@code server} as allocated with {@code tag}, and block index 0 of its data. */
    static BlockLocation at(StorageServerInfo server, long number, long tag) {
        return new BlockLocation(42, 0, server, number, tag);
    }

    private Contents contents(StorageServerInfo server) {
        return servers.computeIfAbsent(server.address() + "/" + server.localToken(), k -> new Contents(
                ByteBuffer.allocate(BLOCK_SIZE * BLOCK_COUNT), new BlockTags(ByteBuffer.allocateDirect(BLOCK_COUNT * 8),
                        BLOCK_COUNT)));
    }

    /** Gives the block a new allocation: locations with older tags become stale. */
    void reallocate(BlockLocation at, long newTag) {
        if (!contents(at.server()).tags().claim(at.blockNumber(), newTag)) {
            throw new AssertionError("tag " + newTag + " is older than the block's");
        }
    }

    /** Stores bytes directly, as if an earlier writer had put them there. */
    void put(BlockLocation at, int offset, byte[] data) {
        reallocate(at, at.tag());
        contents(at.server()).bytes().put(blockStart(at) + offset, data);
    }

    /** The bytes there now. */
    byte[] get(BlockLocation at, int offset, int length) {
        byte[] out = new byte[length];
        contents(at.server()).bytes().get(blockStart(at) + offset, out);
        return out;
    }

    void read(BlockLocation at, int offset, ByteBuffer dst) {
        BlockRanges.check(at.server(), at, offset, dst.remaining());
        Contents c = contents(at.server());
        c.tags().checkOrThrow(at.blockNumber(), at.tag(), at.server().address() + " read");
        dst.put(c.bytes().slice(blockStart(at) + offset, dst.remaining()));
    }

    void write(BlockLocation at, int offset, ByteBuffer src) {
        BlockRanges.check(at.server(), at, offset, src.remaining());
        Contents c = contents(at.server());
        c.tags().claimOrThrow(at.blockNumber(), at.tag(), at.server().address() + " write");
        c.bytes().put(blockStart(at) + offset, src, src.position(), src.remaining());
        src.position(src.limit());
    }

    private static int blockStart(BlockLocation at) {
        return Math.toIntExact(at.blockNumber() * BLOCK_SIZE);
    }
}
