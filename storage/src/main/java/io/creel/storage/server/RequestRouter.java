package io.creel.storage.server;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.storage.spi.Volume;
import io.netty.channel.Channel;
import java.util.EnumMap;
import java.util.Map;

/**
 * Hands each request arriving on a storage server's port to the handler routed for its opcode:
 * block requests to an exporter, region grants to the runtime. The port is bound before the volume
 * exists (file names may carry it), so until {@link #open} every request is answered UNAVAILABLE.
 */
final class RequestRouter implements RequestHandler {
    private final String name;
    private final Map<Opcode, RequestHandler> routes = new EnumMap<>(Opcode.class);
    private volatile Map<Opcode, RequestHandler> open;
    /** Set with {@link #open}, before {@code open}: every request is one of its uses. */
    private volatile Volume volume;

    RequestRouter(String name) {
        this.name = name;
    }

    /** Adds a route; only before {@link #open}. */
    synchronized void route(Opcode opcode, RequestHandler handler) {
        if (open != null) {
            throw new IllegalStateException(name + ": routes are fixed once the server serves");
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
        open = new EnumMap<>(routes);
    }

    @Override
    public void handle(RpcCall call) {
        Map<Opcode, RequestHandler> r = open;
        if (r == null) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + " is still starting");
        }
        RequestHandler h = r.get(call.opcode());
        if (h == null) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + " is a storage server: it does not serve "
                    + call.opcode() + " (it serves " + r.keySet() + ")");
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
    public void connectionClosed(Channel channel) {
        Map<Opcode, RequestHandler> r = open;
        if (r != null) {
            r.values().stream().distinct().forEach(h -> h.connectionClosed(channel));
        }
    }
}
