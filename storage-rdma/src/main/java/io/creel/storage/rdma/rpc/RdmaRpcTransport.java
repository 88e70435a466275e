package io.creel.storage.rdma.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcConnection;
import io.creel.common.rpc.RpcListener;
import io.creel.common.rpc.RpcTransport;
import io.creel.common.security.RpcSecurity;
import io.creel.common.security.SecurityKeys;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;

/**
 * {@code rdma://}: Creel's RPC over RDMA SEND/RECEIVE with DaRPC 1.9. The same frames, requests,
 * replies and errors as over TCP; a namenode reachable at {@code rdma://host:port} serves this next
 * to TCP on the same port number. Found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.creel.common.rpc.RpcTransport}). Where this process cannot use RDMA,
 * connecting and listening fail saying what is missing. With a cluster secret every connection
 * authenticates first ({@link RdmaClientHandshake}, {@link RpcSession}); TLS it cannot carry.
 */
public final class RdmaRpcTransport implements RpcTransport {
    /**
     * How long DaRPC's own loops wait for an event before looking again (its "timeout"): bounds how
     * long its threads take to notice a close. Never 0, which DaRPC reads as "forever".
     */
    static final int DARPC_WAIT_MS = 1000;

    private final RdmaFabric fabric;

    /** For {@link java.util.ServiceLoader}: the process's RDMA. */
    public RdmaRpcTransport() {
        this(RdmaFabric.shared());
    }

    /** A transport whose availability {@code fabric} judges (tests). */
    public RdmaRpcTransport(RdmaFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public String scheme() {
        return "rdma";
    }

    @Override
    public CompletableFuture<RpcConnection> connect(HostPort remote, Context context) {
        CreelConf conf = context.conf();
        RpcSecurity security;
        try {
            security = security(conf, remote.toString());
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        String missing = missing(conf);
        if (missing != null) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "cannot connect to "
                    + remote + ": RDMA is not usable in this process: " + missing));
        }
        return RdmaRpcConnection.connect(remote, conf.get(RdmaTierKeys.RPC_QUEUE_DEPTH), capacity(conf),
                context.connectTimeout(), context.requestTimeout(), security.clientAuthentication(),
                security.handshakeTimeout());
    }

    @Override
    public RpcListener listen(String name, String bindHost, int port, RequestHandler handler, Context context) {
        OpcodeRegistry.installed(); // as RpcServer does: colliding tier opcodes stop the server before it listens
        CreelConf conf = context.conf();
        RpcSecurity security = security(conf, name + ": rdma://" + bindHost + ":" + port);
        String missing = missing(conf);
        if (missing != null) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + ": cannot serve rdma://" + bindHost + ":" + port
                    + ": RDMA is not usable in this process: " + missing);
        }
        return RdmaRpcListener.start(name, listenAddress(name, bindHost, conf), port, handler,
                conf.get(RdmaTierKeys.RPC_QUEUE_DEPTH), capacity(conf), conf.get(RdmaTierKeys.LISTEN_BACKLOG),
                context.connectTimeout(), security);
    }

    /**
     * Where to listen: {@code bindHost}, unless it is the wildcard, which an RDMA listener cannot
     * bind (DiSNI needs the device of the address); then this process's RDMA interface
     * ({@code creel.rdma.address}, else the first RDMA device's).
     */
    private String listenAddress(String name, String bindHost, CreelConf conf) {
        try {
            if (!InetAddress.getByName(bindHost).isAnyLocalAddress()) {
                return bindHost;
            }
            return fabric.localAddress(conf).getHostAddress();
        } catch (UnknownHostException | RdmaException e) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + ": cannot serve rdma:// on " + bindHost + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The security {@code conf} asks for, which rdma:// can give only without TLS: RDMA (DaRPC) has
     * no TLS, and carrying the protocol in clear text where TLS was asked for would be a silent
     * downgrade, so a TLS configuration fails CONFIGURATION here (at a namenode's start, at a
     * client's connect), naming the keys.
     */
    static RpcSecurity security(CreelConf conf, String where) {
        RpcSecurity security = RpcSecurity.of(conf);
        if (security.encrypts()) {
            throw new CreelException(ErrorCode.CONFIGURATION, where + ": rdma:// cannot be used with "
                    + SecurityKeys.TLS_ENABLED.name() + "=true: RDMA has no TLS, and rdma:// would carry the "
                    + "protocol in clear text. Use creel://host:port in " + ConfKeys.NAMENODE_ADDRESS.name()
                    + " for TLS, or set " + SecurityKeys.TLS_ENABLED.name() + "=false to use rdma:// with "
                    + SecurityKeys.SECRET_FILE.name() + " (authenticated, not encrypted)");
        }
        return security;
    }

    private String missing(CreelConf conf) {
        if (RdmaTierKeys.disabled(conf)) {
            return RdmaTierKeys.ENABLED.name() + " is false";
        }
        return fabric.unavailableReason();
    }

    private static int capacity(CreelConf conf) {
        return (int) (long) conf.get(RdmaTierKeys.RPC_MESSAGE_SIZE);
    }
}
