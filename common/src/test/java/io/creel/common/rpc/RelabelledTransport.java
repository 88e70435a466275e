package io.creel.common.rpc;

import io.creel.common.net.HostPort;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport of the scheme "relabelled" for the SPI's tests: TCP underneath, counted, so a test can
 * see that an address's scheme chose it. Registered in this module's test resources, as storage-rdma
 * registers rdma://.
 */
public final class RelabelledTransport implements RpcTransport {
    static final AtomicInteger CONNECTS = new AtomicInteger();
    static final AtomicInteger LISTENS = new AtomicInteger();

    @Override
    public String scheme() {
        return "relabelled";
    }

    @Override
    public CompletableFuture<RpcConnection> connect(HostPort remote, Context context) {
        CONNECTS.incrementAndGet();
        return RpcTransports.forScheme(HostPort.SCHEME).connect(remote.withScheme(HostPort.SCHEME), context);
    }

    @Override
    public RpcListener listen(String name, String bindHost, int port, RequestHandler handler, Context context) {
        LISTENS.incrementAndGet();
        return RpcTransports.forScheme(HostPort.SCHEME).listen(name, bindHost, port, handler, context);
    }
}
