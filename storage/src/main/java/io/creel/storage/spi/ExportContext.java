package io.creel.storage.spi;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RequestHandler;

/**
 * What an exporter gets: the configuration, the server's event loops and name, and the requests it
 * may serve on the server's own port.
 */
public interface ExportContext {
    CreelConf conf();

    /** Event loops of the storage server (owned by the runtime). */
    EventLoops loops();

    /** The server, for messages: "dram storage host:port". */
    String serverName();

    /**
     * Serves requests of type {@code opcode} arriving on the server's port with {@code handler}: a
     * core {@link io.creel.common.protocol.Opcode}, or a tier's own
     * {@link io.creel.common.protocol.TierOpcode} (declared through its
     * {@link io.creel.common.protocol.TierOpcodeSource}, so the frame decoder knows its code). An
     * opcode has one handler; a second route for it is an error.
     */
    void route(RequestType opcode, RequestHandler handler);
}
