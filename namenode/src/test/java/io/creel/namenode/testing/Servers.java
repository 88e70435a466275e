package io.creel.namenode.testing;

import io.creel.common.protocol.StorageServerInfo;

/** Storage-server descriptions for tests. */
public final class Servers {
    private Servers() {
    }

    public static StorageServerInfo server(String tier, String storageClass, String host, int port, long blocks,
                                           int blockSize, long token) {
        return new StorageServerInfo(0, tier, storageClass, host, port, "machine-" + host, blocks, blockSize, "", 0,
                "", 0, token);
    }
}
