package io.creel.storage.tcp.server;

import io.creel.common.protocol.Opcode;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.ExportContext;
import io.creel.storage.spi.Volume;
import java.util.Map;

/**
 * "tcp": serves a volume's blocks as BLOCK_READ and BLOCK_WRITE requests on the storage server's own
 * port. It can serve any volume, so every storage server is reachable over TCP: the path every
 * client can fall back to.
 */
public final class TcpBlockExporter implements BlockExporter {
    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public Export export(Volume volume, ExportContext context) {
        BlockRequestHandler handler = new BlockRequestHandler(context.serverName(), volume);
        context.route(Opcode.BLOCK_READ, handler);
        context.route(Opcode.BLOCK_WRITE, handler);
        return new Export() {
            @Override
            public Map<String, String> attributes() {
                return Map.of(); // the server's host and port are all a client needs
            }

            @Override
            public void close() {
                // the runtime owns the port; requests stop when it closes
            }
        };
    }
}
