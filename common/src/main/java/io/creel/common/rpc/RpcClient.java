package io.creel.common.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.ProtocolException;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipelined TCP connection to a server (the {@code creel://} {@link RpcConnection}): any number
 * of requests in flight, matched to replies by request id. Every request has a timeout; a lost connection fails all of its requests at once
 * with {@link ErrorCode#UNAVAILABLE}. Replies complete their futures on the event loop.
 */
public final class RpcClient implements RpcConnection {
    private static final Logger LOG = LoggerFactory.getLogger(RpcClient.class);

    private final HostPort remote;
    private final Channel channel;
    private final Duration requestTimeout;
    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentHashMap<Long, Pending<?>> pending = new ConcurrentHashMap<>();
    private volatile String closeReason;

    private RpcClient(HostPort remote, Channel channel, Duration requestTimeout) {
        this.remote = remote;
        this.channel = channel;
        this.requestTimeout = requestTimeout;
    }

    /**
     * Connects to {@code remote}. The future fails with UNAVAILABLE if the connection is refused and
     * with TIMEOUT if it takes longer than {@code connectTimeout}.
     */
    public static CompletableFuture<RpcClient> connect(HostPort remote, EventLoops loops, int maxFrame,
                                                       Duration connectTimeout, Duration requestTimeout) {
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
                        ch.pipeline().addLast("frames", Frames.decoder(maxFrame));
                        ch.pipeline().addLast("replies", new Replies(() -> holder[0]));
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
            if (cf.isSuccess()) {
                result.complete(holder[0]);
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
    public <T> CompletableFuture<T> call(Opcode op, Message request, ReplyDecoder<T> decoder) {
        return call(op, request, decoder, requestTimeout);
    }

    /** Sends a request with a specific timeout. */
    @Override
    public <T> CompletableFuture<T> call(Opcode op, Message request, ReplyDecoder<T> decoder, Duration timeout) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.request(channel.alloc(), op, id, request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.INVALID_ARGUMENT,
                    "cannot encode " + op + " request: " + e.getMessage(), e));
        }
        return send(op, id, frame, null, decoder, timeout);
    }

    /**
     * Sends a request whose frame is {@code header} followed by {@code payload} bytes, without
     * copying the payload. Takes ownership of {@code payload}: it is released once written (or on failure).
     */
    @Override
    public <T> CompletableFuture<T> callWithPayload(Opcode op, Message header, ByteBuf payload,
                                                    ReplyDecoder<T> decoder) {
        long id = nextId.getAndIncrement();
        ByteBuf frame;
        try {
            frame = Frames.begin(channel.alloc(), 32, op, 0, id);
            header.encode(frame);
            frame.setInt(0, frame.readableBytes() - Frame.LENGTH_FIELD + payload.readableBytes());
        } catch (RuntimeException e) {
            payload.release();
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.INVALID_ARGUMENT,
                    "cannot encode " + op + " request: " + e.getMessage(), e));
        }
        return send(op, id, frame, payload, decoder, requestTimeout);
    }

    private <T> CompletableFuture<T> send(Opcode op, long id, ByteBuf frame, ByteBuf payload, ReplyDecoder<T> decoder,
                                          Duration timeout) {
        Pending<T> p = new Pending<>(op, decoder);
        String reason = closeReason;
        if (reason != null || !channel.isActive()) {
            frame.release();
            if (payload != null) {
                payload.release();
            }
            p.future.completeExceptionally(lost(reason));
            return p.future;
        }
        pending.put(id, p);
        long millis = Math.max(1, timeout.toMillis());
        p.timer = channel.eventLoop().schedule(() -> {
            Pending<?> gone = pending.remove(id);
            if (gone != null) {
                gone.future.completeExceptionally(new CreelException(ErrorCode.TIMEOUT,
                        op + " to " + remote + " got no reply within " + millis + " ms"));
            }
        }, millis, TimeUnit.MILLISECONDS);
        // One write per frame: two writes from different threads could interleave on the wire.
        ByteBuf whole = payload == null ? frame
                : channel.alloc().compositeDirectBuffer(2).addComponents(true, frame, payload);
        channel.writeAndFlush(whole).addListener(f -> onWritten(id, f));
        return p.future;
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
        return new CreelException(ErrorCode.UNAVAILABLE, "connection to " + remote + " is closed"
                + (reason == null ? "" : ": " + reason));
    }

    private void failAll(String reason) {
        closeReason = reason;
        for (Long id : pending.keySet()) {
            Pending<?> p = pending.remove(id);
            if (p != null) {
                p.cancelTimer();
                p.future.completeExceptionally(lost(reason));
            }
        }
    }

    @Override
    public void close() {
        closeReason = "closed by this client";
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        failAll(closeReason);
    }

    private void onReply(ByteBuf frame) {
        if (frame.readableBytes() < Frame.HEADER_AFTER_LENGTH + 2) {
            throw new ProtocolException("reply frame of " + frame.readableBytes() + " bytes is too short");
        }
        frame.readUnsignedByte(); // opcode, echoed; the request id is what matters
        int flags = frame.readUnsignedByte();
        long id = frame.readLong();
        if ((flags & Frame.FLAG_RESPONSE) == 0) {
            throw new ProtocolException("server sent a request frame");
        }
        Pending<?> p = pending.remove(id);
        if (p == null) {
            LOG.debug("reply from {} for request {} that is no longer waiting (timed out)", remote, id);
            return;
        }
        p.cancelTimer();
        p.complete(frame, remote);
    }

    private static final class Pending<T> {
        final Opcode op;
        final ReplyDecoder<T> decoder;
        final CompletableFuture<T> future = new CompletableFuture<>();
        ScheduledFuture<?> timer;

        Pending(Opcode op, ReplyDecoder<T> decoder) {
            this.op = op;
            this.decoder = decoder;
        }

        void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
            }
        }

        void complete(ByteBuf body, HostPort remote) {
            ReplyBodies.complete(body, decoder, future, op, remote);
        }
    }

    /** Matches replies to requests; fails everything when the connection goes. */
    private static final class Replies extends ChannelInboundHandlerAdapter {
        private final java.util.function.Supplier<RpcClient> client;

        Replies(java.util.function.Supplier<RpcClient> client) {
            this.client = client;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                client.get().onReply(frame);
            } catch (ProtocolException e) {
                LOG.warn("closing connection to {}: {}", client.get().remote, e.getMessage());
                client.get().failAll(e.getMessage());
                ctx.close();
            } finally {
                frame.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            RpcClient c = client.get();
            if (c != null) {
                c.failAll(c.closeReason != null ? c.closeReason : "connection lost");
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            RpcClient c = client.get();
            LOG.debug("connection to {} failed: {}", c == null ? "?" : c.remote, cause.toString());
            if (c != null) {
                c.failAll(cause.toString());
            }
            ctx.close();
        }
    }
}
