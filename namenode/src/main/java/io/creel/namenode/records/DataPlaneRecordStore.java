package io.creel.namenode.records;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import io.creel.storage.transport.TransportSelector;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes directory records through the data plane, exactly as a client writes data: through
 * {@link BlockTransfers}, so the namenode chooses transports, falls back and words its errors by the
 * same rule as every client. The namenode is the authority on where its records live, so a location
 * is never looked up again.
 */
public final class DataPlaneRecordStore implements RecordStore {
    private final BlockTransfers transfers;
    private final RpcConnections connections;

    /** A store using the transports on the class path and its own connections over {@code loops}. */
    public DataPlaneRecordStore(CreelConf conf, EventLoops loops) {
        this(TransportSelector.loadProviders(), conf, new RpcConnections(loops, conf));
    }

    DataPlaneRecordStore(List<BlockTransportProvider> providers, CreelConf conf, RpcConnections connections) {
        this.connections = connections;
        this.transfers = new BlockTransfers(new TransportSelector(providers, new TransportContext(conf, connections)));
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer record) {
        // The namespace names the path the record is for when it reports the failure.
        return transfers.write("directory records of node " + block.nodeId(), block.blockIndex(),
                BlockLocator.at(block), offset, record);
    }

    @Override
    public void close() {
        transfers.close();
        connections.close();
    }
}
