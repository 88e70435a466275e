package io.creel.storage.rdma.rpc;

import com.ibm.darpc.DaRPCClientEndpoint;
import com.ibm.darpc.DaRPCClientGroup;
import com.ibm.darpc.DaRPCFuture;
import com.ibm.darpc.DaRPCStream;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.inflight.InFlightTable;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.Frames;
import io.creel.common.rpc.ReplyBodies;
import io.creel.common.rpc.ReplyDecoder;
import io.creel.common.rpc.RpcConnection;
import io.creel.common.security.ClientAuthentication;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code rdma://} connection: Creel's frames as DaRPC messages over RDMA SEND/RECEIVE, one DaRPC
 * client group and endpoint per connection. Requests are matched to replies by request id, as over
 * TCP; up to the queue depth are in flight (DaRPC's pipeline), more wait in order here instead of
 * spinning in DaRPC. DaRPC's client has no completion thread: a poller thread of this connection
 * polls while requests are in flight (spinning briefly, then backing off) and sleeps when none are.
 *
 * <p>Failures: a completion error or the server disconnecting fails every request with UNAVAILABLE
 * and closes the connection; a request without reply within its timeout fails with TIMEOUT and also
 * closes it, since the pipeline slot it holds cannot be reclaimed. {@link io.creel.common.rpc.RpcConnections}
 * connects again on the next call.
 */
final class RdmaRpcConnection implements RpcConnection {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaRpcConnection.class);
    /** Polls in a row before the poller starts to sleep between polls. */
    private static final int SPINS = 2_000;
    /** Longest sleep between polls while requests are in flight. */
    private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Sleep while no request is in flight (a send wakes the poller at once). */
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** How long closing waits for the poller to leave the completion queue (it is unparked at once). */
    private static final long POLLER_EXIT_MILLIS = 2_000;
    /** Pause between polls while waiting for a handshake answer (two per connection: latency does not matter). */
    private static final long HANDSHAKE_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final HostPort remote;
    private final DaRPCClientGroup<FrameMessage, FrameMessage> group;
    private final DaRPCClientEndpoint<FrameMessage, FrameMessage> endpoint;
    private final DaRPCStream<FrameMessage, FrameMessage> stream;
    private final Duration requestTimeout;
    private final AtomicLong nextId = new AtomicLong(1);
    private final InFlightTable<Long, Pending<?>> pending = new InFlightTable<>();
    private final int capacity;
    private final Object sendLock = new Object();
    /** Free message pairs (request, reply); one per pipeline slot, so a pair is free exactly when a slot is. */
    private final ArrayDeque<FrameMessage[]> freePairs = new ArrayDeque<>();
    /** The pairs in flight, by their request message (DaRPC hands the request back with its reply). */
    private final ConcurrentHashMap<FrameMessage, FrameMessage[]> inFlightPairs = new ConcurrentHashMap<>();
    /** Requests waiting for a slot, in order (send lock). */
    private final ArrayDeque<Queued> queued = new ArrayDeque<>();
    private final Thread poller;
    private volatile String closeReason;

    private record Queued(long id, ByteBuf frame) {
    }

    private RdmaRpcConnection(HostPort remote, DaRPCClientGroup<FrameMessage, FrameMessage> group,
                              DaRPCClientEndpoint<FrameMessage, FrameMessage> endpoint, int depth, int capacity,
                              Duration requestTimeout) throws IOException {
        this.remote = remote;
        this.group = group;
        this.endpoint = endpoint;
        this.stream = endpoint.createStream();
        this.requestTimeout = requestTimeout;
        this.capacity = capacity;
        for (int i = 0; i < depth; i++) {
            freePairs.add(new FrameMessage[] {new FrameMessage(capacity), new FrameMessage(capacity)});
        }
        this.poller = DaRpcWaits.daemon("poller").newThread(this::poll);
    }

    /**
     * One message and its answer, before the poller runs (the authentication handshake): polls here
     * until the answer, the deadline, or the server closing.
     */
    private ByteBuf exchangeFirst(ByteBuf message, long deadlineNanos) throws IOException {
        FrameMessage[] pair = freePairs.peek();
        pair[0].set(message);
        stream.request(pair[0], pair[1], true);
        while (true) {
            DaRPCFuture<FrameMessage, FrameMessage> done = stream.poll();
            if (done != null) {
                return done.getReceiveMessage().raw();
            }
            if (endpoint.isClosed()) {
                throw new IOException("the server closed the connection during the authentication handshake");
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                return null;
            }
            LockSupport.parkNanos(this, HANDSHAKE_POLL_NANOS);
        }
    }

    /** Releases DaRPC's resources of a connection whose poller never ran (a failed handshake). */
    private void abandon() {
        closeReason = "its authentication failed";
        DaRpcWaits.closeInBackground("closing the unauthenticated rdma:// connection to " + remote, () -> {
            try {
                endpoint.close();
            } finally {
                group.close();
            }
        });
    }

    /**
     * Connects to {@code remote} (an {@code rdma://} address), within {@code connectTimeout}, then,
     * when {@code auth} is set, authenticates within {@code handshakeTimeout} before any request.
     *
     * @param depth    requests in flight at most
     * @param capacity largest frame
     * @param auth     the client's end of the authentication handshake; null without a cluster secret
     */
    static CompletableFuture<RpcConnection> connect(HostPort remote, int depth, int capacity, Duration connectTimeout,
                                                    Duration requestTimeout, ClientAuthentication auth,
                                                    Duration handshakeTimeout) {
        DaRPCClientGroup<FrameMessage, FrameMessage> group;
        DaRPCClientEndpoint<FrameMessage, FrameMessage> endpoint;
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(remote.host(), remote.port());
            if (address.isUnresolved()) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "cannot connect to "
                        + remote + ": unknown host " + remote.host()));
            }
            group = DaRPCClientGroup.createClientGroup(new FrameProtocol(capacity), RdmaRpcTransport.DARPC_WAIT_MS, 0,
                    depth, depth);
            endpoint = group.createEndpoint();
        } catch (Exception e) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "cannot connect to "
                    + remote + ": " + e, e));
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
        // The handshake has its own deadline; the bound here only ends a DaRPC wait that never returns.
        Duration limit = auth == null ? connectTimeout : connectTimeout.plus(handshakeTimeout);
        return DaRpcWaits.bounded("connect to " + remote, limit, endpoint, () -> {
            endpoint.connect(address, millis);
            if (!endpoint.isConnected()) {
                throw new IOException("the connection was not established");
            }
            RdmaRpcConnection c = new RdmaRpcConnection(remote, group, endpoint, depth, capacity, requestTimeout);
            if (auth != null) {
                try {
                    RdmaClientHandshake.run(remote, auth, handshakeTimeout, c::exchangeFirst);
                } catch (RuntimeException e) {
                    c.abandon();
                    throw e;
                }
            }
            c.poller.start();
            return c;
        }, late -> late.closeLater("its connect had timed out")).handle((c, t) -> {
            if (t == null) {
                return (RpcConnection) c;
            }
            Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
            if (cause instanceof CreelException refused) {
                throw refused; // the handshake's UNAUTHENTICATED (the connection is being closed)
            }
            DaRpcWaits.closeInBackground("closing the failed connect to " + remote, group::close);
            boolean timedOut = cause instanceof TimeoutException;
            throw new CreelException(timedOut ? ErrorCode.TIMEOUT : ErrorCode.UNAVAILABLE, "cannot connect to " + remote
                    + ": " + (timedOut ? "no answer within " + connectTimeout.toMillis() + " ms (nothing listening, "
                    + "or the server refused)" : cause.getMessage()), cause);
        });
    }

    @Override
    public HostPort remote() {
        return remote;
    }

    @Override
    public boolean isOpen() {
        return closeReason == null;
    }

    @Override
    public int inFlight() {
        return pending.size();
    }

    @Override
    public <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder) {
        return call(op, request, decoder, requestTimeout);
    }

    @Override
    public <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder, Duration timeout) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.request(ByteBufAllocator.DEFAULT, op, id, request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Frames.unencodable(op, e));
        }
        return send(op, id, frame, decoder, timeout);
    }

    @Override
    public <T> CompletableFuture<T> callWithPayload(RequestType op, Message header, ByteBuf payload,
                                                    ReplyDecoder<T> decoder) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.begin(ByteBufAllocator.DEFAULT, 32 + payload.readableBytes(), op, 0, id);
            header.encode(frame);
            frame.writeBytes(payload, payload.readerIndex(), payload.readableBytes());
            Frames.finish(frame);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Frames.unencodable(op, e));
        } finally {
            payload.release();
        }
        return send(op, id, frame, decoder, requestTimeout);
    }

    private <T> CompletableFuture<T> send(RequestType op, long id, ByteBuf frame, ReplyDecoder<T> decoder,
                                          Duration timeout) {
        Pending<T> p = new Pending<>(op, decoder);
        String reason = closeReason;
        if (reason != null) {
            frame.release();
            p.future.completeExceptionally(lost(reason));
            return p.future;
        }
        if (frame.readableBytes() > capacity) {
            int n = frame.readableBytes();
            frame.release();
            p.future.completeExceptionally(new CreelException(ErrorCode.LIMIT_EXCEEDED, op + " request of " + n
                    + " bytes exceeds the rdma:// message size of " + capacity + " bytes (raise "
                    + RdmaTierKeys.RPC_MESSAGE_SIZE.name() + " on clients and servers alike)"));
            return p.future;
        }
        long millis = Math.max(1, timeout.toMillis());
        p.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        pending.put(id, p);
        p.timer = DaRpcWaits.TIMER.schedule(() -> timedOut(id, op, millis), millis, TimeUnit.MILLISECONDS);
        synchronized (sendLock) {
            // Checked again under the lock that closing takes: nothing is posted once the endpoint may
            // be on its way to being destroyed.
            if (closeReason != null) {
                frame.release();
                failPending(id);
                return p.future;
            }
            FrameMessage[] pair = freePairs.poll();
            if (pair == null) {
                queued.add(new Queued(id, frame));
                return p.future;
            }
            post(pair, frame);
        }
        LockSupport.unpark(poller);
        return p.future;
    }

    /** Sends one frame in a free pipeline slot (send lock held); releases the frame. */
    private void post(FrameMessage[] pair, ByteBuf frame) {
        try {
            pair[0].set(frame);
            inFlightPairs.put(pair[0], pair);
            stream.request(pair[0], pair[1], true);
        } catch (IOException | RuntimeException e) {
            inFlightPairs.remove(pair[0]);
            freePairs.push(pair);
            closeLater("sending a request failed: " + e);
        } finally {
            frame.release();
        }
    }

    private void timedOut(long id, RequestType op, long millis) {
        Pending<?> p = pending.remove(id);
        if (p != null) {
            p.future.completeExceptionally(new CreelException(ErrorCode.TIMEOUT, op + " to " + remote
                    + " got no reply within " + millis + " ms"));
            // Its DaRPC slot stays taken until a reply that may never come: start afresh.
            closeLater("a request got no reply within " + millis + " ms");
        }
    }

    private void poll() {
        int idle = 0;
        while (closeReason == null) {
            DaRPCFuture<FrameMessage, FrameMessage> done;
            try {
                done = stream.poll();
            } catch (IOException | RuntimeException e) {
                broke("RDMA completion error: " + e.getMessage());
                return;
            }
            if (done != null) {
                idle = 0;
                replied(done);
                continue;
            }
            if (endpoint.isClosed()) {
                broke("the server disconnected");
                return;
            }
            if (pending.isEmpty()) {
                LockSupport.parkNanos(this, IDLE_NANOS);
                idle = 0;
            } else if (++idle < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, Math.min(MAX_BACKOFF_NANOS, 1000L << Math.min(20, (idle - SPINS) / 8)));
            }
        }
    }

    private void replied(DaRPCFuture<FrameMessage, FrameMessage> done) {
        FrameMessage[] pair = inFlightPairs.remove(done.getSendMessage());
        ByteBuf frame = done.getReceiveMessage().frameAfterLength();
        try {
            long id = readReplyHead(frame);
            Pending<?> p = pending.remove(id);
            if (p == null) {
                LOG.debug("reply from {} for request {} that is no longer waiting", remote, id);
            } else {
                p.cancelTimer();
                p.complete(frame, remote);
            }
        } catch (ProtocolException e) {
            broke(e.getMessage());
            return;
        } finally {
            if (frame != null) {
                frame.release();
            }
        }
        if (pair != null) {
            sendNext(pair);
        }
    }

    /**
     * Reads a reply frame's head (after its length field) up to the body and returns its request id;
     * refuses a frame too short for a reply, a request frame, and a reply of a newer wire protocol
     * version, with the same check and message as a creel:// client ({@link Frames#checkReplyVersion}).
     *
     * @param frame the frame after its length field, or null when it did not fit its message
     * @throws ProtocolException saying what is wrong; the connection is then closed with that reason
     */
    static long readReplyHead(ByteBuf frame) {
        if (frame == null) {
            throw new ProtocolException("malformed reply: a reply frame that does not fit its message");
        }
        if (frame.readableBytes() < Frame.HEADER_AFTER_LENGTH + 2) {
            throw new ProtocolException("malformed reply: reply frame of " + frame.readableBytes()
                    + " bytes is too short");
        }
        frame.readUnsignedByte(); // opcode, echoed; the request id is what matters
        int flags = frame.readUnsignedByte();
        long id = frame.readLong();
        if ((flags & Frame.FLAG_RESPONSE) == 0) {
            throw new ProtocolException("malformed reply: the server sent a request frame");
        }
        Frames.checkReplyVersion(flags);
        return id;
    }

    /** A slot came free: the oldest waiting request takes it. */
    private void sendNext(FrameMessage[] pair) {
        synchronized (sendLock) {
            while (closeReason == null) {
                Queued next = queued.poll();
                if (next == null) {
                    freePairs.push(pair);
                    return;
                }
                if (pending.contains(next.id())) {
                    post(pair, next.frame());
                    return;
                }
                next.frame().release(); // timed out while it waited
            }
        }
    }

    /** Fails a request that lost the race with closing (its future may have been failed already). */
    private void failPending(long id) {
        Pending<?> p = pending.remove(id);
        if (p != null) {
            p.cancelTimer();
            p.future.completeExceptionally(lost(closeReason));
        }
    }

    private CreelException lost(String reason) {
        return new CreelException(ErrorCode.UNAVAILABLE, "connection to " + remote + " is closed: " + reason);
    }

    private void broke(String reason) {
        LOG.info("rdma:// connection to {} lost: {}", remote, reason);
        closeLater(reason);
    }

    /** Closes, waiting a bounded time for DaRPC to let go. */
    @Override
    public void close() {
        if (Thread.currentThread() == poller) {
            // A reply's callback closing its own connection: the poller cannot wait for itself to stop.
            closeLater("closed by this client");
            return;
        }
        if (failEverything("closed by this client")) {
            DaRpcWaits.closeWithin("closing the rdma:// connection to " + remote, Duration.ofSeconds(5),
                    this::releaseDaRpc);
        }
    }

    /** Closes without waiting (from the poller or a timer, which must not block). */
    private void closeLater(String reason) {
        if (failEverything(reason)) {
            DaRpcWaits.closeInBackground("closing the rdma:// connection to " + remote, this::releaseDaRpc);
        }
    }

    /** Marks the connection closed and fails every request; false if it was closed already. */
    private boolean failEverything(String reason) {
        synchronized (sendLock) {
            if (closeReason != null) {
                return false;
            }
            closeReason = reason;
            queued.forEach(q -> q.frame().release());
            queued.clear();
        }
        pending.failAll(p -> {
            p.cancelTimer();
            p.future.completeExceptionally(lost(reason));
        });
        LockSupport.unpark(poller);
        return true;
    }

    /** DaRPC's close waits for the disconnect; run it where waiting harms nobody. */
    private void releaseDaRpc() throws IOException, InterruptedException {
        // The poller polls the completion queue that closing destroys: it must be gone first (it sees
        // the close reason at its next turn). Called from the poller itself only through a background
        // thread, never on it.
        poller.join(POLLER_EXIT_MILLIS);
        if (poller.isAlive()) {
            LOG.warn("rdma:// connection to {}: its completion poller did not stop within {} ms; its queue pair "
                    + "and completion queue are left open rather than destroyed under it", remote, POLLER_EXIT_MILLIS);
            return;
        }
        try {
            endpoint.close();
        } finally {
            group.close();
        }
    }

    /** A request waiting for its reply; its own timer (not a sweep) fails it at its deadline. */
    private static final class Pending<T> implements InFlightTable.Deadlined {
        final RequestType op;
        final ReplyDecoder<T> decoder;
        final CompletableFuture<T> future = new CompletableFuture<>();
        long deadline;
        volatile ScheduledFuture<?> timer;

        Pending(RequestType op, ReplyDecoder<T> decoder) {
            this.op = op;
            this.decoder = decoder;
        }

        @Override
        public long deadlineNanos() {
            return deadline;
        }

        void cancelTimer() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }

        void complete(ByteBuf body, HostPort remote) {
            ReplyBodies.complete(body, decoder, future, op, remote);
        }
    }
}
