package io.creel.storage.tcp.transport;

import io.creel.common.error.CreelException;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.BlockWriteHeader;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.spi.BlockRanges;
import io.creel.storage.spi.BlockTransport;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Moves block bytes over the server's pooled TCP connection. A read's reply bytes are received
 * straight into the caller's buffer; a write sends the caller's buffer wrapped, without copying it.
 */
final class TcpTransport implements BlockTransport {
    private final StorageServerInfo server;
    private final HostPort address;
    private final RpcConnections connections;

    TcpTransport(StorageServerInfo server, RpcConnections connections) {
        this.server = server;
        this.address = new HostPort(server.host(), server.port());
        this.connections = connections;
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        int length = dst.remaining();
        try {
            BlockRanges.check(server, block, offset, length);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        BlockReadRequest req = new BlockReadRequest(block.blockNumber(), block.tag(), offset, length);
        // The reply's bytes go straight into dst as they arrive (see RpcClient.callInto).
        return connections.get(address).thenCompose(c -> c.callInto(Opcode.BLOCK_READ, req, dst))
                .thenApply(placed -> {
                    dst.position(dst.limit());
                    return null;
                });
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        int length = src.remaining();
        try {
            BlockRanges.check(server, block, offset, length);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        BlockWriteHeader header = new BlockWriteHeader(block.blockNumber(), block.tag(), offset);
        return connections.get(address)
                .thenCompose(c -> c.callWithPayload(Opcode.BLOCK_WRITE, header, Unpooled.wrappedBuffer(src.duplicate()),
                        Empty::decode))
                .thenApply(ok -> {
                    src.position(src.position() + length);
                    return null;
                });
    }

    @Override
    public String name() {
        return "tcp";
    }

    /** The connection belongs to the shared pool, which closes it. */
    @Override
    public void close() {
        // nothing of our own to release
    }
}
