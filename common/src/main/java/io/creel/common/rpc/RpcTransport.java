package io.creel.common.rpc;

import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A way to carry the frame protocol between a client and a server, named by the scheme of the
 * server's address: {@code creel://} is TCP ({@link RpcClient}, {@link RpcServer}), built in; other
 * schemes ({@code rdma://}) come from modules on the class path through
 * {@link java.util.ServiceLoader} ({@code META-INF/services/io.creel.common.rpc.RpcTransport}).
 * {@link RpcConnections} connects with the transport of each address's scheme, and a server starts a
 * listener of the transport its address names, so neither names a concrete transport.
 */
public interface RpcTransport {
    /** The address scheme this transport serves ("creel", "rdma"). */
    String scheme();

    /**
     * Connects to {@code remote}. The future fails with UNAVAILABLE when the server cannot be
     * reached (or this transport cannot be used here, saying why) and TIMEOUT after the connect timeout.
     */
    CompletableFuture<RpcConnection> connect(HostPort remote, Context context);

    /**
     * Starts serving {@code handler} on {@code bindHost:port} (0: any free port). Requests are
     * dispatched with {@link RequestDispatch}, so handlers see the same calls whatever carries them.
     *
     * @param name for log lines ("namenode")
     * @throws io.creel.common.error.CreelException UNAVAILABLE when it cannot listen, saying why
     */
    RpcListener listen(String name, String bindHost, int port, RequestHandler handler, Context context);

    /**
     * What a transport gets: the configuration (for its own keys), the process's event loops, and
     * the limits every connection keeps.
     */
    record Context(CreelConf conf, EventLoops loops, int maxFrame, Duration connectTimeout, Duration requestTimeout) {
    }
}
