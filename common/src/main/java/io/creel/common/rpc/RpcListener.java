package io.creel.common.rpc;

/** A server of the frame protocol listening on one transport; see {@link RpcTransport#listen}. */
public interface RpcListener extends AutoCloseable {
    /** The port bound. */
    int port();

    /** Stops listening and closes every connection. */
    @Override
    void close();
}
