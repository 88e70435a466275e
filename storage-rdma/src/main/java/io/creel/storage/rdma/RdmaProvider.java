package io.creel.storage.rdma;

import java.net.InetAddress;

/** Opens RDMA devices: the real one (DiSNI over libdisni.so) or an in-memory fake for tests. */
public interface RdmaProvider {
    /**
     * Opens the RDMA device behind the network interface that has {@code localAddress}.
     *
     * @throws RdmaException {@link RdmaException.Kind#NOT_AVAILABLE} naming what is missing
     */
    RdmaDevice open(InetAddress localAddress, RdmaSettings settings) throws RdmaException;
}
