package io.creel.common.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared, pipelined connection per server address, opened on first use and reopened after it
 * breaks. Concurrent first users share the same connect attempt.
 */
public final class RpcConnections implements AutoCloseable {
    private final EventLoops loops;
    private final int maxFrame;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final ConcurrentHashMap<HostPort, CompletableFuture<RpcClient>> clients = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public RpcConnections(EventLoops loops, CreelConf conf) {
        this(loops, conf.maxFrameSize(), conf.get(ConfKeys.CLIENT_CONNECT_TIMEOUT),
                conf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT));
    }

    public RpcConnections(EventLoops loops, int maxFrame, Duration connectTimeout, Duration requestTimeout) {
        this.loops = loops;
        this.maxFrame = maxFrame;
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
    }

    /** The connection to {@code remote}, connecting if there is none or the last one broke. */
    public CompletableFuture<RpcClient> get(HostPort remote) {
        if (closed) {
            return CompletableFuture.failedFuture(new io.creel.common.error.CreelException(
                    io.creel.common.error.ErrorCode.UNAVAILABLE, "connections are closed"));
        }
        CompletableFuture<RpcClient> f = clients.get(remote);
        if (f != null && (!f.isDone() || (!f.isCompletedExceptionally() && f.join().isOpen()))) {
            return f;
        }
        return clients.compute(remote, (k, old) -> {
            if (old != null && old != f) {
                return old; // someone else reconnected meanwhile
            }
            CompletableFuture<RpcClient> fresh = RpcClient.connect(remote, loops, maxFrame, connectTimeout, requestTimeout);
            // A failed connect is not cached: the next call tries again.
            fresh.whenComplete((c, e) -> {
                if (e != null) {
                    clients.remove(remote, fresh);
                }
            });
            return fresh;
        });
    }

    /**
     * The open connection to {@code remote} if there is one now, else {@code null} (then use
     * {@link #get}); lets a caller skip a future when the connection is there, as it almost always is.
     */
    public RpcClient ready(HostPort remote) {
        CompletableFuture<RpcClient> f = clients.get(remote);
        if (f == null || !f.isDone() || f.isCompletedExceptionally() || closed) {
            return null;
        }
        RpcClient c = f.getNow(null);
        return c != null && c.isOpen() ? c : null;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    @Override
    public void close() {
        closed = true;
        for (CompletableFuture<RpcClient> f : clients.values()) {
            f.thenAccept(RpcClient::close);
        }
        clients.clear();
    }
}
