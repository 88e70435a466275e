package io.creel.storage.server;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.RequestType;
import io.creel.common.protocol.TierOpcodeSource;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcPeer;
import io.creel.storage.spi.Volume;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * Hands each request arriving on a storage server's port to the handler routed for its opcode:
 * block requests to an exporter, region grants to the runtime. The port is bound before the volume
 * exists (file names may carry it), so until {@link #open} every request is answered UNAVAILABLE.
 */
final class RequestRouter implements RequestHandler {
    private final String name;
    private final Map<RequestType, RequestHandler> routes = new HashMap<>();
    private volatile Map<RequestType, RequestHandler> open;
    /** Set with {@link #open}, before {@code open}: every request is one of its uses. */
    private volatile Volume volume;

    RequestRouter(String name) {
        this.name = name;
    }

    /** Adds a route; only before {@link #open}. */
    synchronized void route(RequestType opcode, RequestHandler handler) {
        if (open != null) {
            throw new IllegalStateException(name + ": routes are fixed once the server serves");
        }
        if (!opcode.equals(OpcodeRegistry.installed().ofCode(opcode.code()))) {
            // The frame decoder would refuse every such request as an unknown opcode: a packaging error.
            throw new CreelException(ErrorCode.CONFIGURATION, name + ": " + opcode + " (code " + opcode.code()
                    + ") is routed but not registered: its tier's META-INF/services/"
                    + TierOpcodeSource.class.getName() + " entry is missing");
        }
        if (routes.putIfAbsent(opcode, handler) != null) {
            // Two exporters on the class path serving the same requests: a deployment error.
            throw new CreelException(ErrorCode.CONFIGURATION, name + ": " + opcode + " is routed twice (two block "
                    + "exporters on the class path serve it)");
        }
    }

    /**
     * Starts serving the routes added so far, each request as a use of {@code volume} (see
     * {@link Volume#enterUse}), so that the volume's close never releases its memory under a handler.
     */
    synchronized void open(Volume volume) {
        this.volume = volume;
        open = Map.copyOf(routes);
    }

    @Override
    public void handle(RpcCall call) {
        Map<RequestType, RequestHandler> r = open;
        if (r == null) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + " is still starting");
        }
        RequestHandler h = r.get(call.opcode());
        if (h == null) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + " is a storage server: it does not serve "
                    + call.opcode() + " (it serves " + r.keySet().stream().sorted(Comparator.comparingInt(RequestType::code))
                    .toList() + ")");
        }
        Volume v = volume;
        if (!v.enterUse()) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + " is stopping: " + call.opcode() + " refused");
        }
        try {
            h.handle(call);
        } finally {
            v.exitUse();
        }
    }

    @Override
    public void connectionClosed(RpcPeer peer) {
        Map<RequestType, RequestHandler> r = open;
        if (r != null) {
            r.values().stream().distinct().forEach(h -> h.connectionClosed(peer));
        }
    }
}
