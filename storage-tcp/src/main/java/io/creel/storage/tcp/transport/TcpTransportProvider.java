package io.creel.storage.tcp.transport;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.spi.TransportCost;

/** "tcp": reaches any storage server of the TCP tiers over its data-plane port; the fallback of all. */
public final class TcpTransportProvider implements BlockTransportProvider {
    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public int cost() {
        return TransportCost.SERVER_OVER_TCP.value();
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        return new TcpTransport(server, context.connections());
    }
}
