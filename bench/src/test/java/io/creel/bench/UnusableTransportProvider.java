package io.creel.bench;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;

/** A transport on the class path that cannot be used here, as RDMA on a machine without it. */
public final class UnusableTransportProvider implements BlockTransportProvider {
    @Override
    public String name() {
        return "unusable";
    }

    @Override
    public int cost() {
        return 50;
    }

    @Override
    public String unavailableReason(CreelConf conf) {
        return "no /dev/infiniband: this kernel offers no RDMA";
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        return null;
    }
}
