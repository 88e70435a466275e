package io.creel.storage.rdma;

import java.net.InetSocketAddress;

/**
 * Accepts connections from peers that read and write this side's registered memory. The accepting
 * side does no work per operation: the device serves one-sided reads and writes on its own.
 */
public interface RdmaListener extends AutoCloseable {
    /** The address peers connect to. */
    InetSocketAddress localAddress();

    /** Connections currently established with peers. */
    int connectionCount();

    /** Stops accepting and disconnects every accepted peer. Idempotent. */
    @Override
    void close();
}
