package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.inflight.InFlightTable;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.RequestType;
import io.creel.common.security.RpcSecurity;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipelined TCP connection to a server (the {@code creel://} {@link RpcConnection}): any number
 * of requests in flight, matched to replies by request id. Every request has a timeout; a lost connection fails all of its requests at once
 * with {@link ErrorCode#UNAVAILABLE}. Replies complete their futures on the event loop.
 *
 * <p>Requests with the connection's default timeout are not each given a timer: a sweep on the
 * event loop fails the overdue ones every {@link #sweepPeriodNanos} (an eighth of the timeout, at
 * most 250 ms), so a request fails at most that much after its timeout. Scheduling and cancelling a
 * timer per request cost more than the request's own bookkeeping. A request with another timeout
 * gets its own timer.
 */
public final class RpcClient implements RpcConnection {
    private static final Logger LOG = LoggerFactory.getLogger(RpcClient.class);

    private final HostPort remote;
    private final Channel channel;
    private final Duration requestTimeout;
    private final AtomicLong nextId = new AtomicLong(1);
    private final InFlightTable<Long, Pending<?>> pending = new InFlightTable<>();
    private volatile String closeReason;
    /** What a request on a closed connection fails with: UNAUTHENTICATED once TLS refused this client. */
    private volatile ErrorCode closeCode = ErrorCode.UNAVAILABLE;

    /** How often overdue requests with the default timeout are looked for. */
    private final long sweepPeriodNanos;
    private volatile ScheduledFuture<?> sweeper;

    RpcClient(HostPort remote, Channel channel, Duration requestTimeout) {
        this.remote = remote;
        this.channel = channel;
        this.requestTimeout = requestTimeout;
        this.sweepPeriodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
                Math.min(requestTimeout.toNanos() / 8, TimeUnit.MILLISECONDS.toNanos(250)));
    }

    /**
     * Connects to {@code remote}. The future fails with UNAVAILABLE if the connection is refused and
     * with TIMEOUT if it takes longer than {@code connectTimeout}.
     */
    public static CompletableFuture<RpcClient> connect(HostPort remote, EventLoops loops, int maxFrame,
                                                       Duration connectTimeout, Duration requestTimeout) {
        return connect(remote, loops, maxFrame, connectTimeout, requestTimeout, RpcSecurity.none());
    }

    /**
     * Connects to {@code remote} with {@code security}: the future completes once the connection is
     * authenticated and fails with UNAUTHENTICATED, saying why, when it cannot be.
     */
    public static CompletableFuture<RpcClient> connect(HostPort remote, EventLoops loops, int maxFrame,
                                                       Duration connectTimeout, Duration requestTimeout,
                                                       RpcSecurity security) {
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] secured = new CompletableFuture[1];
        CompletableFuture<RpcClient> result = new CompletableFuture<>();
        RpcClient[] holder = new RpcClient[1];
        Bootstrap b = new Bootstrap()
                .group(loops.group())
                .channel(loops.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, connectTimeout.toMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ReplyReader replies = new ReplyReader(() -> holder[0], maxFrame);
                        // Over TLS the socket's bytes are ciphertext: they must never land in a destination.
                        ch.config().setRecvByteBufAllocator(security.encrypts() ? Frames.receiveSizes()
                                : new ReceiveInPlace(replies));
                        // Requests issued by reply callbacks during one read leave in one write.
                        ch.pipeline().addLast("flushes", new FlushConsolidationHandler(RpcServer.MAX_HELD_FLUSHES, false));
                        ch.pipeline().addLast("replies", replies);
                        secured[0] = security.addClientHandlers(ch, remote);
                    }
                });
        ChannelFuture f;
        try {
            f = b.connect(remote.toSocketAddress());
        } catch (RuntimeException e) {
            result.completeExceptionally(new CreelException(ErrorCode.UNAVAILABLE,
                    "cannot connect to " + remote + ": " + e.getMessage(), e));
            return result;
        }
        holder[0] = new RpcClient(remote, f.channel(), requestTimeout);
        f.addListener((ChannelFuture cf) -> {
            if (cf.isSuccess() && secured[0] == null) {
                connected(holder[0], result);
            } else if (cf.isSuccess()) {
                secured[0].whenComplete((ok, failure) -> {
                    if (failure == null) {
                        connected(holder[0], result);
                    } else {
                        result.completeExceptionally(failure);
                    }
                });
            } else {
                Throwable c = cf.cause();
                boolean timedOut = c instanceof io.netty.channel.ConnectTimeoutException;
                // Netty's native messages ("finishConnect(..) failed with error(-111) ...") say less than this.
                String why = timedOut ? "no answer within " + connectTimeout.toMillis() + " ms"
                        : c instanceof java.net.ConnectException ? "connection refused"
                        : c == null ? "unknown error" : c.getMessage();
                result.completeExceptionally(new CreelException(timedOut ? ErrorCode.TIMEOUT : ErrorCode.UNAVAILABLE,
                        "cannot connect to " + remote + ": " + why, c));
            }
        });
        return result;
    }

    /**
     * Hands the connected client to whoever waits for it; if nobody does any more (the connect was
     * given up, e.g. by {@link RpcConnections#close}), the connection is closed instead of leaking.
     */
    private static void connected(RpcClient client, CompletableFuture<RpcClient> result) {
        client.startSweeping();
        if (!result.complete(client)) {
            client.closeReason = "the connect was given up";
            client.channel.close(); // on the event loop: no waiting here
        }
    }

    @Override
    public HostPort remote() {
        return remote;
    }

    @Override
    public boolean isOpen() {
        return channel.isActive();
    }

    /** Requests currently waiting for a reply. */
    @Override
    public int inFlight() {
        return pending.size();
    }

    /** Sends a request and decodes its reply. */
    @Override
    public <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder) {
        return call(op, request, decoder, requestTimeout);
    }

    /** Sends a request with a specific timeout. */
    @Override
    public <T> CompletableFuture<T> call(RequestType op, Message request, ReplyDecoder<T> decoder, Duration timeout) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.request(channel.alloc(), op, id, request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Frames.unencodable(op, e));
        }
        return send(op, id, frame, null, decoder, timeout);
    }

    /**
     * Sends a request whose frame is {@code header} followed by {@code payload} bytes, without
     * copying the payload. Takes ownership of {@code payload}: it is released once written (or on failure).
     */
    @Override
    public <T> CompletableFuture<T> callWithPayload(RequestType op, Message header, ByteBuf payload,
                                                    ReplyDecoder<T> decoder) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.begin(channel.alloc(), 32, op, 0, id);
            header.encode(frame);
            frame.setInt(0, frame.readableBytes() - Frame.LENGTH_FIELD + payload.readableBytes());
        } catch (RuntimeException e) {
            payload.release();
            return CompletableFuture.failedFuture(Frames.unencodable(op, e));
        }
        return send(op, id, frame, payload, decoder, requestTimeout);
    }

    /**
     * Sends a request whose successful reply carries a payload of exactly {@code dst.remaining()} bytes,
     * and puts that payload into {@code dst} as it arrives, from {@code dst}'s position (which is not
     * moved): no reply frame is assembled, and the socket reads into {@code dst} itself when it is a
     * direct buffer ({@link ReplyReader}). A reply of another size fails with PROTOCOL, an error reply
     * with its error, a payload its sender withdrew after sending it (its verdict, see {@link Frame})
     * with the verdict's error.
     *
     * <p>Buffer ownership: {@code dst} belongs to the call until the future completes; a failed call
     * may have written any part of it. Once the future has failed (a timeout, a lost connection)
     * nothing more is written into it.
     */
    @Override
    public CompletableFuture<Void> callInto(RequestType op, Message request, ByteBuffer dst) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.request(channel.alloc(), op, id, request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Frames.unencodable(op, e));
        }
        int expected = dst.remaining();
        // Used only for a reply that is not placed: an OK reply of the wrong size.
        ReplyDecoder<Void> wrongSize = body -> {
            throw new CreelException(ErrorCode.PROTOCOL, op + " reply from " + remote + " carried "
                    + (body.readableBytes() - Frame.VERDICT) + " payload bytes where " + expected + " were asked for");
        };
        return send(new Pending<>(op, wrongSize, dst), id, frame, null, requestTimeout);
    }

    private <T> CompletableFuture<T> send(RequestType op, long id, ByteBuf frame, ByteBuf payload, ReplyDecoder<T> decoder,
                                          Duration timeout) {
        return send(new Pending<>(op, decoder, null), id, frame, payload, timeout);
    }

    private <T> CompletableFuture<T> send(Pending<T> p, long id, ByteBuf frame, ByteBuf payload, Duration timeout) {
        RequestType op = p.op;
        String reason = closeReason;
        if (reason != null || !channel.isActive()) {
            frame.release();
            if (payload != null) {
                payload.release();
            }
            p.future.completeExceptionally(lost(reason));
            return p.future;
        }
        long millis = Math.max(1, timeout.toMillis());
        p.timeoutMillis = millis;
        p.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        pending.put(id, p);
        String closedMeanwhile = closeReason;
        if (closedMeanwhile != null && pending.remove(id, p)) {
            // A close between the check above and the put missed this request in failAll; its write's
            // listener may never run either (a terminated event loop drops listener notifications).
            frame.release();
            if (payload != null) {
                payload.release();
            }
            p.future.completeExceptionally(lost(closedMeanwhile));
            return p.future;
        }
        if (!timeout.equals(requestTimeout)) {
            p.timer = channel.eventLoop().schedule(() -> expire(id), millis, TimeUnit.MILLISECONDS);
        }
        // One write per frame: two writes from different threads could interleave on the wire.
        ByteBuf whole = payload == null ? frame
                : channel.alloc().compositeDirectBuffer(2).addComponents(true, frame, payload);
        channel.writeAndFlush(whole).addListener(f -> onWritten(id, f));
        return p.future;
    }

    /** Fails request {@code id} with TIMEOUT if it is still waiting. */
    private void expire(long id) {
        Pending<?> gone = pending.remove(id);
        if (gone != null) {
            timedOut(gone);
        }
    }

    private void timedOut(Pending<?> gone) {
        gone.future.completeExceptionally(new CreelException(ErrorCode.TIMEOUT,
                gone.op + " to " + remote + " got no reply within " + gone.timeoutMillis + " ms"));
    }

    private void startSweeping() {
        sweeper = channel.eventLoop().scheduleAtFixedRate(this::sweep, sweepPeriodNanos, sweepPeriodNanos,
                TimeUnit.NANOSECONDS);
        channel.closeFuture().addListener(f -> sweeper.cancel(false));
    }

    /** Fails every request whose deadline has passed. */
    private void sweep() {
        pending.sweep(System.nanoTime(), (id, p) -> timedOut(p));
    }

    private void onWritten(long id, io.netty.util.concurrent.Future<?> f) {
        if (!f.isSuccess()) {
            Pending<?> p = pending.remove(id);
            if (p != null) {
                p.cancelTimer();
                p.future.completeExceptionally(new CreelException(ErrorCode.UNAVAILABLE,
                        "cannot send " + p.op + " to " + remote + ": " + f.cause(), f.cause()));
            }
        }
    }

    private CreelException lost(String reason) {
        return new CreelException(closeCode, "connection to " + remote + " is closed"
                + (reason == null ? "" : ": " + reason));
    }

    /**
     * Fails every request waiting for a reply. On the event loop, so it never races a payload being
     * placed into a request's destination; from another thread it waits for the loop to do it (a
     * loop that is gone reads nothing more, so then it is done right here).
     */
    private void failAll(String reason) {
        closeReason = reason;
        if (!channel.eventLoop().inEventLoop()) {
            try {
                if (channel.eventLoop().submit(() -> failAll(reason)).awaitUninterruptibly(2, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (java.util.concurrent.RejectedExecutionException e) {
                LOG.debug("event loop of the connection to {} is gone: {}", remote, e.toString());
            }
        }
        pending.failAll(p -> {
            p.cancelTimer();
            p.future.completeExceptionally(lost(reason));
        });
    }

    @Override
    public void close() {
        closeReason = "closed by this client";
        ScheduledFuture<?> s = sweeper;
        if (s != null) {
            s.cancel(false);
        }
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        failAll(closeReason);
    }

    /** A whole reply ({@code body} is what follows the status) for request {@code id}. */
    void onReply(long id, int status, ByteBuf body) {
        Pending<?> p = pending.remove(id);
        if (p == null) {
            LOG.debug("reply from {} for request {} that is no longer waiting (timed out)", remote, id);
            return;
        }
        p.cancelTimer();
        p.complete(status, body, remote);
    }

    /**
     * The request {@code id} if its successful reply's {@code payloadLength} bytes go into its destination
     * ({@link #callInto}), else {@code null} (no such request waiting, no destination, another size).
     */
    Pending<?> placement(long id, int payloadLength) {
        Pending<?> p = pending.get(id);
        return p != null && p.target != null && p.target.remaining() == payloadLength && p.waiting() ? p : null;
    }

    /**
     * The payload of request {@code id}'s reply is in its destination ({@code p}'s, if it still waits),
     * and the sender's verdict on it is {@code verdict}: 0, the request succeeds; else it fails with
     * that error code.
     */
    void placed(long id, Pending<?> p, int verdict) {
        if (!pending.remove(id, p)) {
            return;
        }
        p.cancelTimer();
        if (verdict == Frame.STATUS_OK) {
            p.future.complete(null);
        } else {
            ErrorCode code = ErrorCode.of(verdict);
            p.future.completeExceptionally(new CreelException(code, remote + " withdrew the " + p.op
                    + " reply's bytes after sending them: they changed while they were sent (" + code + ")"));
        }
    }

    void protocolError(String why) {
        LOG.warn("closing connection to {}: {}", remote, why);
        failAll(why);
    }

    void connectionLost() {
        failAll(closeReason != null ? closeReason : "connection lost");
    }

    void connectionFailed(Throwable cause) {
        LOG.debug("connection to {} failed: {}", remote, cause.toString());
        String refusal = RpcSecurity.tlsRefusal(cause);
        if (refusal != null) {
            closeCode = ErrorCode.UNAUTHENTICATED;
            failAll(refusal);
        } else {
            failAll(cause.toString());
        }
    }

    /** A request waiting for its reply. */
    static final class Pending<T> implements InFlightTable.Deadlined {
        final RequestType op;
        final ReplyDecoder<T> decoder;
        /** Where the payload of a successful reply goes, or {@code null} to decode the reply. */
        private final ByteBuffer target;
        final CompletableFuture<T> future = new CompletableFuture<>();
        /** When the request times out ({@link System#nanoTime()}), and after how long. */
        long deadline;
        long timeoutMillis;
        /** Its own timer, for a timeout other than the connection's default. */
        ScheduledFuture<?> timer;

        Pending(RequestType op, ReplyDecoder<T> decoder, ByteBuffer target) {
            this.op = op;
            this.decoder = decoder;
            this.target = target;
        }

        @Override
        public long deadlineNanos() {
            return deadline;
        }

        /** Whether the request still waits: while it does, its destination is this connection's to write. */
        boolean waiting() {
            return !future.isDone();
        }

        ByteBuffer target() {
            return target;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
            }
        }

        void complete(int status, ByteBuf body, HostPort remote) {
            ReplyBodies.complete(status, body, decoder, future, op, remote);
        }
    }
}
