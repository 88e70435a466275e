package io.creel.namenode.testing;

import io.creel.common.protocol.StorageServerInfo;

/** Storage-server descriptions for tests. */
public final class Servers {
    private Servers() {
    }

    /** Grants every block of {@code server} to the allocator as one region, as a storage server would. */
    public static StorageServerInfo grantAll(io.creel.namenode.allocation.BlockAllocator allocator,
                                             StorageServerInfo server) {
        allocator.granted(server, (int) server.blockCount(),
                java.util.List.of(new io.creel.common.protocol.RegionGrantReply.Grant(0, 0)), true);
        return server;
    }

    public static StorageServerInfo server(String tier, String storageClass, String host, int port, long blocks,
                                           int blockSize, long token) {
        return StorageServerInfo.of(0, tier, storageClass, host, port, "machine-" + host, blocks, blockSize, token,
                java.util.Map.of());
    }
}
