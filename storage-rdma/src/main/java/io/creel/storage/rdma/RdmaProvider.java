package io.creel.storage.rdma;

import java.net.InetAddress;

/** Opens RDMA devices: the real one (DiSNI over libdisni.so) or, in tests, the in-memory fake of this module's test-jar. */
public interface RdmaProvider {
    /**
     * Opens the RDMA device behind the network interface that has {@code localAddress}.
     *
     * @throws RdmaException {@link RdmaException.Kind#NOT_AVAILABLE} naming what is missing
     */
    RdmaDevice open(InetAddress localAddress, RdmaSettings settings) throws RdmaException;
}
