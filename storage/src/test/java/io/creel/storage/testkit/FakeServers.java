package io.creel.storage.testkit;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Pretend storage servers, one {@link MemoryVolume} each (found by address and token, made at the
 * first use), so fake transports move real bytes and a stale location is refused for the same
 * reason a server would refuse it.
 */
public final class FakeServers {
    public static final int BLOCK_SIZE = 4096;
    public static final int BLOCK_COUNT = 8;

    private final Map<String, MemoryVolume> servers = new ConcurrentHashMap<>();

    /** A server at {@code host:port} whose medium has identity {@code token}. */
    public static StorageServerInfo server(String host, int port, long token) {
        return StorageServerInfo.of(0, "fake", "dram", host, port, "host-" + host, BLOCK_COUNT, BLOCK_SIZE, token,
                Map.of());
    }

    /** Block {@code number} of {@code server} as allocated with {@code tag}, and block index 0 of its data. */
    public static BlockLocation at(StorageServerInfo server, long number, long tag) {
        return new BlockLocation(42, 0, server, number, tag);
    }

    /** The volume of {@code server}. */
    public MemoryVolume volume(StorageServerInfo server) {
        return servers.computeIfAbsent(server.address() + "/" + server.localToken(), k -> MemoryVolume.of(server));
    }

    /** Gives the block a new allocation: locations with older tags become stale. */
    public void reallocate(BlockLocation at, long newTag) {
        volume(at.server()).reallocate(at.blockNumber(), newTag);
    }

    /** Stores bytes directly, as if an earlier writer had put them there. */
    public void put(BlockLocation at, int offset, byte[] data) {
        reallocate(at, at.tag());
        volume(at.server()).put(at.blockNumber(), offset, data);
    }

    /** The bytes there now. */
    public byte[] get(BlockLocation at, int offset, int length) {
        return volume(at.server()).get(at.blockNumber(), offset, length);
    }

    /** Reads as the server would, refusing a stale location. */
    public void read(BlockLocation at, int offset, ByteBuffer dst) {
        volume(at.server()).read(at, offset, dst);
    }

    /** Writes as the server would, refusing a location older than the block's allocation. */
    public void write(BlockLocation at, int offset, ByteBuffer src) {
        volume(at.server()).write(at, offset, src);
    }
}
