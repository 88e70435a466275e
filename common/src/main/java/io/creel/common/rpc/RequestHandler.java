package io.creel.common.rpc;

/** Serves requests of an {@link RpcServer}. Called on an event-loop thread: do not block for long. */
@FunctionalInterface
public interface RequestHandler {
    /**
     * Handles one request. Throwing a {@link io.creel.common.protocol.ProtocolException} closes the
     * connection (the peer speaks nonsense); throwing any other {@link io.creel.common.error.CreelException}
     * answers the request with that error.
     */
    void handle(RpcCall call);

    /**
     * Called once when a connection closes, so connection-scoped state (leases) can be released;
     * {@code peer} is the one its calls carried ({@link RpcCall#peer()}).
     */
    default void connectionClosed(RpcPeer peer) {
    }
}
