package io.creel.common.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared, pipelined connection per server address, opened on first use and reopened after it
 * breaks. Concurrent first users share the same connect attempt. Each address is reached with the
 * {@link RpcTransport} of its scheme ({@code creel://} TCP, {@code rdma://}, ...).
 */
public final class RpcConnections implements AutoCloseable {
    private final RpcTransport.Context context;
    private final Duration requestTimeout;
    private final ConcurrentHashMap<HostPort, CompletableFuture<RpcConnection>> clients = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public RpcConnections(EventLoops loops, CreelConf conf) {
        this(new RpcTransport.Context(conf, loops, conf.maxFrameSize(), conf.get(ConfKeys.CLIENT_CONNECT_TIMEOUT),
                conf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT)));
    }

    public RpcConnections(EventLoops loops, int maxFrame, Duration connectTimeout, Duration requestTimeout) {
        this(new RpcTransport.Context(CreelConf.defaults(), loops, maxFrame, connectTimeout, requestTimeout));
    }

    private RpcConnections(RpcTransport.Context context) {
        this.context = context;
        this.requestTimeout = context.requestTimeout();
    }

    /** The connection to {@code remote}, connecting if there is none or the last one broke. */
    public CompletableFuture<RpcConnection> get(HostPort remote) {
        if (closed) {
            return CompletableFuture.failedFuture(new io.creel.common.error.CreelException(
                    io.creel.common.error.ErrorCode.UNAVAILABLE, "connections are closed"));
        }
        CompletableFuture<RpcConnection> f = clients.get(remote);
        if (f != null && (!f.isDone() || (!f.isCompletedExceptionally() && f.join().isOpen()))) {
            return f;
        }
        RpcTransport transport;
        try {
            transport = RpcTransports.forScheme(remote.scheme());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<RpcConnection> result = clients.compute(remote, (k, old) -> {
            if (old != null && old != f) {
                return old; // someone else reconnected meanwhile
            }
            try {
                return transport.connect(remote, context);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        if (closed) {
            // close() ran between the check above and compute, and did not see this connection.
            result.completeExceptionally(new io.creel.common.error.CreelException(
                    io.creel.common.error.ErrorCode.UNAVAILABLE, "connections are closed"));
            result.thenAccept(RpcConnection::close);
        }
        // A failed connect is not cached: the next call tries again. (Registered outside compute: a
        // connect that failed at once completes this callback right here.)
        result.whenComplete((c, e) -> {
            if (e != null) {
                clients.remove(remote, result);
            }
        });
        return result;
    }

    /**
     * The open connection to {@code remote} if there is one now, else {@code null} (then use
     * {@link #get}); lets a caller skip a future when the connection is there, as it almost always is.
     */
    public RpcConnection ready(HostPort remote) {
        CompletableFuture<RpcConnection> f = clients.get(remote);
        if (f == null || !f.isDone() || f.isCompletedExceptionally() || closed) {
            return null;
        }
        RpcConnection c = f.getNow(null);
        return c != null && c.isOpen() ? c : null;
    }

    /** Whether {@link #close} was called: nothing is connected any more. */
    public boolean isClosed() {
        return closed;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    @Override
    public void close() {
        closed = true;
        for (CompletableFuture<RpcConnection> f : clients.values()) {
            // A connect still under way fails its waiters now: once the caller closes the event loops,
            // the connect's own completion may never be delivered (a terminated loop drops it).
            f.completeExceptionally(new io.creel.common.error.CreelException(io.creel.common.error.ErrorCode.UNAVAILABLE,
                    "connections are closed"));
            f.thenAccept(RpcConnection::close);
        }
        clients.clear();
    }
}
