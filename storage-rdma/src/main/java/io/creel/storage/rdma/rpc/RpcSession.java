package io.creel.storage.rdma.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.Frames;
import io.creel.common.rpc.RequestDispatch;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcPeer;
import io.creel.common.security.HandshakeFailure;
import io.creel.common.security.RpcSecurity;
import io.creel.common.security.SecurityKeys;
import io.creel.common.security.ServerAuthentication;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of one {@code rdma://} client, apart from DaRPC: each received frame goes to the
 * {@link RequestHandler} through {@link RequestDispatch}, as over TCP, and each reply a handler
 * writes goes back in the exchange of its request. The session is the {@link RpcPeer} handlers
 * reply through and that names the client for connection-scoped state (a namenode's write leases).
 *
 * <p>With a cluster secret ({@link RpcSecurity#serverAuthentication()}) nothing is dispatched before
 * the client has proven it: its first message must be the handshake's HELLO (answered in the same
 * exchange with the CHALLENGE), its second the PROOF (answered with ACCEPTED and this side's proof),
 * within the handshake timeout. A request sent instead is answered with an UNAUTHENTICATED error,
 * a wrong proof with REFUSED; the client is logged and, a moment later (so the answer is not
 * overtaken by the disconnect), dropped. Once it is authenticated a request costs one field read
 * more than without a secret.
 *
 * <p>A malformed frame, or a request id reused while its first request is unanswered, drops the
 * session with a logged reason. A reply larger than a message is replaced by a LIMIT_EXCEEDED error
 * naming the key to raise. Replies may come from any thread.
 */
final class RpcSession implements RpcPeer {
    private static final Logger LOG = LoggerFactory.getLogger(RpcSession.class);

    /** One request and the reply slot it came with (a DaRPC server event). */
    interface Exchange {
        FrameMessage request();

        FrameMessage reply();

        /** Sends the reply now in {@link #reply()}. */
        void send() throws IOException;
    }

    /** How long a refused client keeps its connection, so the refusal reaches it before the disconnect. */
    static final long REFUSAL_LINGER_MILLIS = 500;

    private final String server;
    private final String local;
    private final String peer;
    private final RequestHandler handler;
    private final int capacity;
    private final Consumer<String> onDrop;
    private final Map<Long, Exchange> waiting = new ConcurrentHashMap<>();
    /**
     * Replies are sent under the read lock, and dropping takes the write lock before the endpoint is
     * closed: a reply never posts on a queue pair that is being destroyed (a native crash, not an
     * exception).
     */
    private final ReentrantReadWriteLock sendLock = new ReentrantReadWriteLock();
    private volatile boolean dropped;
    /** The handshake still to complete; null once the client is authenticated (or without a secret). */
    private volatile ServerAuthentication auth;
    /** Who the client proved to be; null until then (and without a secret). */
    private volatile io.creel.common.security.Identity identity;
    private boolean challenged;
    private volatile boolean refused;
    private final ScheduledFuture<?> handshakeTimer;

    /** A session without authentication. */
    RpcSession(String server, String peer, RequestHandler handler, int capacity, Consumer<String> onDrop) {
        this(server, "rdma://", peer, handler, capacity, RpcSecurity.none(), onDrop);
    }

    /**
     * @param server   the server, for log lines ("namenode")
     * @param local    the address the client reached, for its error messages ("rdma://10.0.2.15:9060")
     * @param peer     the client, for log lines
     * @param capacity largest frame a message holds
     * @param security whether the client must authenticate first, and within what time
     * @param onDrop   disconnects the client (called once, with the reason, or null for a plain close)
     */
    RpcSession(String server, String local, String peer, RequestHandler handler, int capacity, RpcSecurity security,
               Consumer<String> onDrop) {
        this.server = server;
        this.local = local;
        this.peer = peer;
        this.handler = handler;
        this.capacity = capacity;
        this.onDrop = onDrop;
        this.auth = security.serverAuthentication();
        long limit = security.handshakeTimeout().toMillis();
        this.handshakeTimer = auth == null ? null : DaRpcWaits.TIMER.schedule(() -> {
            if (auth != null && !refused) {
                refused = true;
                LOG.warn("{}: refused rdma:// connection from {}: did not authenticate within {} ms", server, peer,
                        limit);
                drop("did not authenticate within " + limit + " ms", false);
            }
        }, Math.max(1, limit), TimeUnit.MILLISECONDS);
    }

    @Override
    public String remote() {
        return peer;
    }

    @Override
    public ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT;
    }

    @Override
    public boolean isOpen() {
        return !dropped;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        return DaRpcWaits.TIMER.schedule(task, delay, unit);
    }

    /** A reply a handler wrote: sent in the exchange of its request, from whatever thread calls. */
    @Override
    public void send(ByteBuf frame) {
        try {
            reply(frame);
        } finally {
            frame.release();
        }
    }

    /** Requests waiting for their replies. */
    int waiting() {
        return waiting.size();
    }

    @Override
    public io.creel.common.security.Identity identity() {
        return identity;
    }

    /** Whether the client has authenticated (or need not). */
    boolean authenticated() {
        return auth == null && !refused;
    }

    /** A request arrived. */
    void received(Exchange exchange) {
        if (auth != null || refused) {
            authenticate(exchange);
            return;
        }
        ByteBuf frame = exchange.request().frameAfterLength();
        if (frame == null || frame.readableBytes() < Frame.HEADER_AFTER_LENGTH) {
            if (frame != null) {
                frame.release();
            }
            if (exchange.request().length() == 0 && opensHandshake(exchange.request().raw())) {
                refuse(exchange, "it opened the authentication handshake, but this server has no cluster secret",
                        ServerAuthentication.refusal(alloc(), server + " at " + local + " does not "
                                + "authenticate (no " + SecurityKeys.SECRET_FILE.name() + " set there), so a client "
                                + "with a cluster secret does not use it"));
                return;
            }
            drop("malformed frame (its length does not match what arrived)");
            return;
        }
        try {
            long id = frame.getLong(frame.readerIndex() + 2);
            if (waiting.putIfAbsent(id, exchange) != null) {
                throw new ProtocolException("request id " + id + " reused while the first is unanswered");
            }
            RequestDispatch.dispatch(server, this, frame, handler);
        } catch (ProtocolException e) {
            drop(e.getMessage());
        } finally {
            frame.release();
        }
    }

    /** A message while the client is not authenticated: the next step of the handshake. */
    private void authenticate(Exchange exchange) {
        if (refused) {
            return; // refused: nothing more is answered, the drop is on its way
        }
        ByteBuf in = exchange.request().raw();
        try {
            if (!challenged) {
                if (!opensHandshake(in)) {
                    refuseRequest(exchange);
                    return;
                }
                if (in.readableBytes() < ServerAuthentication.helloBytes(in)) {
                    refuse(exchange, "its HELLO is cut short", null);
                    return;
                }
                ByteBuf challenge = auth.challenge(in, alloc());
                challenged = true;
                answer(exchange, challenge);
                return;
            }
            if (in.readableBytes() < ServerAuthentication.PROOF_BYTES) {
                refuse(exchange, "its PROOF is cut short", null);
                return;
            }
            ByteBuf accepted = auth.accept(in, alloc());
            identity = auth.identity();
            auth = null; // before the answer: the client's next message is a request
            handshakeTimer.cancel(false);
            LOG.debug("{}: rdma:// client {} authenticated", server, peer);
            answer(exchange, accepted);
        } catch (HandshakeFailure e) {
            refuse(exchange, e.getMessage(), null);
        }
    }

    private static boolean opensHandshake(ByteBuf in) {
        return in.readableBytes() >= 4 && ServerAuthentication.opensHandshake(in);
    }

    /**
     * A request sent without authenticating: answered with an UNAUTHENTICATED error reply to it when
     * it is a frame (a client without a secret then reads why), else with REFUSED.
     */
    private void refuseRequest(Exchange exchange) {
        FrameMessage request = exchange.request();
        String why = "it sent a request without authenticating";
        ByteBuf frame = request.frameAfterLength();
        if (frame == null || frame.readableBytes() < Frame.HEADER_AFTER_LENGTH) {
            if (frame != null) {
                frame.release();
            }
            refuse(exchange, why, null);
            return;
        }
        try {
            RequestType op = OpcodeRegistry.installed().ofCode(frame.getUnsignedByte(frame.readerIndex()));
            long id = frame.getLong(frame.readerIndex() + 2);
            refuse(exchange, why, op == null ? null : Frames.error(alloc(), op, id,
                    ServerAuthentication.requestWithoutAuthentication(server + " at " + local)));
        } finally {
            frame.release();
        }
    }

    /**
     * Refuses the client: logs it, answers {@code exchange} with {@code answer} (REFUSED with the
     * reason when null), and drops the session once the answer had time to arrive.
     */
    private void refuse(Exchange exchange, String why, ByteBuf answer) {
        refused = true;
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
        LOG.warn("{}: refused rdma:// connection from {}: {}", server, peer, why);
        answer(exchange, answer != null ? answer
                : ServerAuthentication.refusal(alloc(), server + " refused the connection: " + why));
        DaRpcWaits.TIMER.schedule(() -> drop("refused: " + why, false), REFUSAL_LINGER_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Sends {@code message} (released here) in {@code exchange}, unless the session is gone. */
    private void answer(Exchange exchange, ByteBuf message) {
        Exception failed = null;
        sendLock.readLock().lock();
        try {
            if (dropped) {
                return;
            }
            exchange.reply().set(message);
            exchange.send();
        } catch (IOException | RuntimeException e) {
            failed = e;
        } finally {
            sendLock.readLock().unlock();
            message.release();
        }
        if (failed != null) {
            drop("sending a handshake answer failed: " + failed);
        }
    }

    /** A reply a handler wrote (a whole frame): sent in the exchange of its request. */
    private void reply(ByteBuf frame) {
        int at = frame.readerIndex();
        long id = frame.getLong(at + Frame.LENGTH_FIELD + 2);
        Exchange exchange = waiting.remove(id);
        if (exchange == null) {
            LOG.debug("{}: reply to request {} of {} after the connection closed", server, id, peer);
            return;
        }
        Exception failed = null;
        sendLock.readLock().lock();
        try {
            if (dropped) {
                LOG.debug("{}: reply to request {} of {} after the connection closed", server, id, peer);
                return;
            }
            place(exchange.reply(), frame, at, id);
            exchange.send();
        } catch (IOException | RuntimeException e) {
            failed = e;
        } finally {
            sendLock.readLock().unlock();
        }
        if (failed != null) {
            drop("sending a reply failed: " + failed);
        }
    }

    /** Copies a reply frame into its message, or a LIMIT_EXCEEDED error when it does not fit. */
    private void place(FrameMessage out, ByteBuf frame, int at, long id) {
        if (out.fits(frame.readableBytes())) {
            out.set(frame);
            return;
        }
        RequestType op = OpcodeRegistry.installed().ofCode(frame.getUnsignedByte(at + Frame.LENGTH_FIELD));
        ByteBuf error = Frames.error(alloc(), op == null ? Opcode.STATUS : op, id,
                new CreelException(ErrorCode.LIMIT_EXCEEDED, server + ": the " + op + " reply of "
                        + frame.readableBytes() + " bytes exceeds the rdma:// message size of " + capacity
                        + " bytes (raise " + RdmaTierKeys.RPC_MESSAGE_SIZE.name() + ", or use creel://)"));
        try {
            out.set(error);
        } finally {
            error.release();
        }
    }

    /** Ends the session: its connection state goes and the client is disconnected; {@code why} is logged. */
    void drop(String why) {
        drop(why, true);
    }

    /** Ends the session; {@code why} goes to the drop callback, and to the log when {@code log}. */
    private void drop(String why, boolean log) {
        sendLock.writeLock().lock(); // waits for replies being sent; none starts after
        try {
            if (dropped) {
                return;
            }
            dropped = true;
        } finally {
            sendLock.writeLock().unlock();
        }
        waiting.clear();
        if (handshakeTimer != null) {
            handshakeTimer.cancel(false);
        }
        if (why != null && log) {
            LOG.warn("{}: closing rdma:// connection from {}: {}", server, peer, why);
        }
        handler.connectionClosed(this);
        onDrop.accept(why);
    }
}
