package io.creel.storage.rdma.rpc;

import com.ibm.darpc.DaRPCServerEndpoint;
import com.ibm.darpc.DaRPCServerEvent;
import com.ibm.darpc.DaRPCServerGroup;
import com.ibm.darpc.DaRPCService;
import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.util.NativeAffinity;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcListener;
import io.creel.common.security.RpcSecurity;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code rdma://} server: a DaRPC server group whose service hands each client's frames to an
 * {@link RpcSession}, which serves them with the same {@link RequestHandler} the TCP server uses.
 *
 * <p>DaRPC calls the service on its completion thread; replies may come from any thread and are
 * sent at once (DaRPC's send path is thread-safe; the server's queues are twice the clients' depth,
 * so a reply always finds a send slot). DaRPC's accept waits without a limit: it runs on a daemon
 * thread that closing ends ({@link DaRpcWaits}), and a watchdog ends handshakes that do not finish.
 */
final class RdmaRpcListener implements RpcListener {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcListener.class);
    /** Clients one listener serves at once: DaRPC sizes its completion queue by it. */
    static final int MAX_CONNECTIONS = 128;
    /** DaRPC 1.9's server event does not say which endpoint it came on; its private field does. */
    private static final Field EVENT_ENDPOINT = eventEndpointField();
    /** DiSNI's group keeps its endpoints in a protected map; the accept watchdog looks at it. */
    private static final Field GROUP_ENDPOINTS = groupEndpointsField();

    private final String name;
    private final RequestHandler handler;
    private final int capacity;
    private final Map<DaRPCServerEndpoint<FrameMessage, FrameMessage>, RpcSession> sessions = new ConcurrentHashMap<>();
    private final DaRPCServerGroup<FrameMessage, FrameMessage> group;
    private final RdmaServerEndpoint<DaRPCServerEndpoint<FrameMessage, FrameMessage>> server;
    private final int port;
    private final Duration handshakeLimit;
    private final RpcSecurity security;
    private final String address;
    /** Endpoints seen not yet connected, and when first seen (watchdog thread only). */
    private final Map<Object, Long> handshaking = new HashMap<>();
    private final ScheduledFuture<?> watchdog;
    private volatile boolean closed;

    private RdmaRpcListener(String name, String bindHost, int port, RequestHandler handler, int depth, int capacity,
                            int backlog, Duration handshakeLimit, RpcSecurity security) throws Exception {
        this.name = name;
        this.security = security;
        this.handler = handler;
        this.capacity = capacity;
        this.handshakeLimit = handshakeLimit;
        // No pinning: the completion thread may run on any CPU this process may use.
        this.group = DaRPCServerGroup.createServerGroup(new Service(capacity), new long[] {NativeAffinity.getAffinity()},
                RdmaRpcTransport.DARPC_WAIT_MS, 0, false, 2 * depth, 2 * depth, 2 * depth, MAX_CONNECTIONS);
        try {
            this.server = group.createServerEndpoint();
            server.bind(new InetSocketAddress(bindHost, port), backlog);
            this.port = ((InetSocketAddress) server.getSrcAddr()).getPort();
            this.address = "rdma://" + bindHost + ":" + this.port;
        } catch (Exception e) {
            DaRpcWaits.closeWithin("closing the rdma:// group of " + name, Duration.ofSeconds(5), group::close);
            throw e;
        }
        Thread acceptor = DaRpcWaits.daemon("accept").newThread(this::accept);
        acceptor.start();
        long period = Math.max(100, Math.min(1000, handshakeLimit.toMillis() / 4));
        this.watchdog = DaRpcWaits.TIMER.scheduleWithFixedDelay(this::endStuckHandshakes, period, period,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Starts serving on {@code bindHost:port} (an address of an RDMA interface, or the wildcard for all);
     * with a cluster secret in {@code security}, each client authenticates before it is served.
     *
     * @throws CreelException UNAVAILABLE when it cannot listen, saying why
     */
    static RdmaRpcListener start(String name, String bindHost, int port, RequestHandler handler, int depth,
                                 int capacity, int backlog, Duration handshakeLimit, RpcSecurity security) {
        try {
            RdmaRpcListener l = new RdmaRpcListener(name, bindHost, port, handler, depth, capacity, backlog,
                    handshakeLimit, security);
            LOG.info("{}: serving rdma://{}:{}{}", name, bindHost, l.port,
                    security.authenticates() ? " (clients authenticate with the cluster secret)" : "");
            return l;
        } catch (Exception e) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + ": cannot listen on rdma://" + bindHost + ":" + port
                    + ": " + e, e);
        }
    }

    @Override
    public int port() {
        return port;
    }

    /** Clients connected now. */
    int connectionCount() {
        return sessions.size();
    }

    /** The session of {@code endpoint}, made at its first sign of life. */
    private RpcSession session(DaRPCServerEndpoint<FrameMessage, FrameMessage> endpoint) {
        return sessions.computeIfAbsent(endpoint, ep -> new RpcSession(name, address, peer(ep), handler, capacity,
                security, why -> {
            sessions.remove(ep);
            DaRpcWaits.closeInBackground("closing an rdma:// connection of " + name, ep::close);
        }));
    }

    private static String peer(DaRPCServerEndpoint<FrameMessage, FrameMessage> endpoint) {
        try {
            return String.valueOf(endpoint.getDstAddr());
        } catch (IOException e) {
            return "an rdma:// client";
        }
    }

    private void accept() {
        while (!closed) {
            try {
                server.accept(); // the service's open() sees it once established
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    LOG.warn("{}: accepting an rdma:// connection failed: {}", name, e.toString());
                }
            }
        }
    }

    /**
     * DiSNI's accept waits without a limit for each connection's handshake (its resources, then the
     * ESTABLISHED event), one connection at a time: a client that gives up half way (or a handshake
     * that failed on the server, as a queue pair refused by the device) would keep every later
     * client out. An endpoint still not connected after the handshake limit is handed a DISCONNECTED
     * event, which ends that wait, and closed.
     */
    private void endStuckHandshakes() {
        List<Object> now;
        synchronized (group) { // DiSNI's group guards its map with its own monitor
            now = List.copyOf(endpoints().values());
        }
        long t = System.nanoTime();
        handshaking.keySet().retainAll(now);
        for (Object o : now) {
            RdmaEndpoint ep = (RdmaEndpoint) o;
            if (ep.isConnected() || ep.isClosed()) {
                handshaking.remove(ep);
                continue;
            }
            long since = handshaking.computeIfAbsent(ep, k -> t);
            if (t - since > handshakeLimit.toNanos()) {
                handshaking.remove(ep);
                LOG.warn("{}: an rdma:// connection from {} did not complete its handshake within {} ms; dropped", name,
                        peerOf(ep), handshakeLimit.toMillis());
                DaRpcWaits.disconnect(ep);
                DaRpcWaits.closeInBackground("closing a stuck rdma:// handshake of " + name, ep::close);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Map<Object, Object> endpoints() {
        try {
            return (Map<Object, Object>) GROUP_ENDPOINTS.get(group);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read DiSNI's endpoints", e);
        }
    }

    private static String peerOf(RdmaEndpoint ep) {
        try {
            return String.valueOf(ep.getDstAddr());
        } catch (IOException e) {
            return "a client";
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        watchdog.cancel(false);
        DaRpcWaits.disconnect(server); // ends the acceptor's wait
        for (RpcSession s : List.copyOf(sessions.values())) {
            s.drop(null);
        }
        DaRpcWaits.closeWithin("closing the rdma:// listener of " + name, Duration.ofSeconds(10), () -> {
            server.close();
            group.close();
        });
    }

    @SuppressWarnings("unchecked")
    private static DaRPCServerEndpoint<FrameMessage, FrameMessage> endpointOf(DaRPCServerEvent<FrameMessage,
            FrameMessage> event) {
        try {
            return (DaRPCServerEndpoint<FrameMessage, FrameMessage>) EVENT_ENDPOINT.get(event);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read the endpoint of a DaRPC event", e);
        }
    }

    private static Field groupEndpointsField() {
        try {
            Field f = RdmaEndpointGroup.class.getDeclaredField("clientEndpointMap");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException | RuntimeException e) {
            throw new ExceptionInInitializerError("RdmaEndpointGroup has no field 'clientEndpointMap': this is not "
                    + "DiSNI 2.1 (" + e + ")");
        }
    }

    private static Field eventEndpointField() {
        try {
            Field f = DaRPCServerEvent.class.getDeclaredField("endpoint");
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException | RuntimeException e) {
            throw new ExceptionInInitializerError("DaRPCServerEvent has no field 'endpoint': this is not DaRPC 1.9 ("
                    + e + ")");
        }
    }

    /** What DaRPC calls: frames in, connections opened and closed. */
    private final class Service extends FrameProtocol implements DaRPCService<FrameMessage, FrameMessage> {
        Service(int capacity) {
            super(capacity);
        }

        @Override
        public void processServerEvent(DaRPCServerEvent<FrameMessage, FrameMessage> event) {
            session(endpointOf(event)).received(new RpcSession.Exchange() {
                @Override
                public FrameMessage request() {
                    return event.getReceiveMessage();
                }

                @Override
                public FrameMessage reply() {
                    return event.getSendMessage();
                }

                @Override
                public void send() throws IOException {
                    event.triggerResponse();
                }
            });
        }

        @Override
        public void open(DaRPCServerEndpoint<FrameMessage, FrameMessage> endpoint) {
            session(endpoint);
        }

        @Override
        public void close(DaRPCServerEndpoint<FrameMessage, FrameMessage> endpoint) {
            RpcSession s = sessions.get(endpoint);
            if (s != null) {
                s.drop(null);
            }
        }
    }
}
