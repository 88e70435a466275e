package io.creel.common.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.security.RpcSecurity;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP server speaking the frame protocol: cuts frames, checks headers, and hands each request to
 * a {@link RequestHandler}. A peer that sends a malformed frame is disconnected with a logged reason;
 * every other connection carries on.
 */
public final class RpcServer implements RpcListener {
    private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
    /** Flushes held back while a read is in progress before one is let through anyway. */
    static final int MAX_HELD_FLUSHES = 256;

    private final String name;
    private final Channel serverChannel;
    private final ChannelGroup connections;

    private RpcServer(String name, Channel serverChannel, ChannelGroup connections) {
        this.name = name;
        this.serverChannel = serverChannel;
        this.connections = connections;
    }

    /**
     * Binds and starts serving.
     *
     * @param name      used in log lines ("namenode", "dram storage")
     * @param bindHost  interface to listen on
     * @param port      port, 0 for any free one
     * @param loops     event loops to run on (not closed by this server)
     * @param maxFrame  largest frame accepted
     * @param handler   serves the requests
     */
    public static RpcServer start(String name, String bindHost, int port, EventLoops loops, int maxFrame,
                                  RequestHandler handler) {
        return start(name, bindHost, port, loops, maxFrame, java.time.Duration.ofSeconds(30), handler);
    }

    /**
     * Binds and starts serving; a peer that leaves a frame incomplete for {@code frameTimeout} is
     * disconnected (an idle connection between frames is fine).
     */
    public static RpcServer start(String name, String bindHost, int port, EventLoops loops, int maxFrame,
                                  java.time.Duration frameTimeout, RequestHandler handler) {
        return start(name, bindHost, port, loops, maxFrame, frameTimeout, RpcSecurity.none(), handler);
    }

    /**
     * Binds and starts serving with the limits and security {@code conf} sets: its maximum frame and
     * frame timeout, and its {@link RpcSecurity} (a peer is served only once it has authenticated).
     */
    public static RpcServer start(String name, String bindHost, int port, EventLoops loops, CreelConf conf,
                                  RequestHandler handler) {
        return start(name, bindHost, port, loops, conf.maxFrameSize(), conf.get(ConfKeys.NET_FRAME_TIMEOUT),
                RpcSecurity.of(conf), ServerLimits.of(conf), handler);
    }

    /** Binds and starts serving; a peer is served only once {@code security}'s handshake has admitted it. */
    public static RpcServer start(String name, String bindHost, int port, EventLoops loops, int maxFrame,
                                  java.time.Duration frameTimeout, RpcSecurity security, RequestHandler handler) {
        return start(name, bindHost, port, loops, maxFrame, frameTimeout, security, ServerLimits.defaults(), handler);
    }

    /**
     * Binds and starts serving; a peer is served only once {@code security}'s handshake has admitted
     * it, and within {@code limits}.
     */
    public static RpcServer start(String name, String bindHost, int port, EventLoops loops, int maxFrame,
                                  java.time.Duration frameTimeout, RpcSecurity security, ServerLimits limits,
                                  RequestHandler handler) {
        security.checkServable();
        // The tiers' own request types, registered before the port is bound: two that collide stop the server here.
        OpcodeRegistry.installed();
        long frameTimeoutMillis = Math.max(1, frameTimeout.toMillis());
        long idleMillis = limits.idleTimeout().toMillis();
        PeerCount peers = new PeerCount(name, limits.maxConnectionsPerPeer());
        // Made before binding: a connection may be accepted before bind() returns. It stays closed: a
        // connection accepted while the server closes joins it after close() went through the group,
        // and must be closed then, not served (its owner may already have released what it serves).
        ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE, true);
        ServerBootstrap b = new ServerBootstrap()
                .group(loops.group())
                .channel(loops.serverSocketChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.RECVBUF_ALLOCATOR, Frames.receiveSizes())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!peers.admit(ch)) {
                            ch.close();
                            return;
                        }
                        connections.add(ch);
                        Frames.FrameDecoder frames = Frames.decoder(maxFrame);
                        // Replies to the requests of one read leave in one write, not one syscall each.
                        ch.pipeline().addLast("flushes", new FlushConsolidationHandler(MAX_HELD_FLUSHES, false));
                        ch.pipeline().addLast("idle", new IdleStateHandler(frameTimeoutMillis, 0, idleMillis,
                                TimeUnit.MILLISECONDS));
                        ch.pipeline().addLast("frames", frames);
                        ch.pipeline().addLast("dispatch", new Dispatch(name, handler, frames, limits.maxInFlight(),
                                idleMillis));
                        security.addServerHandlers(ch, name);
                    }
                });
        try {
            Channel ch = b.bind(bindHost, port).sync().channel();
            return new RpcServer(name, ch, connections);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.INTERNAL, name + ": interrupted while binding");
        } catch (Exception e) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + ": cannot listen on " + bindHost + ":" + port
                    + ": " + e.getMessage(), e);
        }
    }

    /** The address actually bound (with the chosen port when 0 was asked for). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public int port() {
        return localAddress().getPort();
    }

    /** Stops listening and closes every open connection. */
    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        LOG.debug("{}: stopped", name);
    }

    /**
     * Checks frame headers and dispatches requests; one instance per connection. At most
     * {@code maxInFlight} of the connection's requests are being handled at once: further frames wait
     * here, and the connection is not read until one is answered, so a flooding peer fills its own
     * socket buffers, not the server's memory.
     */
    private static final class Dispatch extends ChannelInboundHandlerAdapter {
        private final String name;
        private final RequestHandler handler;
        private final Frames.FrameDecoder frames;
        private final RpcProbe probe;
        private final int maxInFlight;
        private final long idleMillis;
        /** Requests handed to the handler and not answered yet; answered from any thread. */
        private final AtomicInteger inFlight = new AtomicInteger();
        /** Frames that arrived while {@code maxInFlight} were being handled (event loop only). */
        private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
        private final Runnable answered = this::answered;
        private ChannelHandlerContext ctx;
        /** The connection as handlers see it: one object for its whole life. */
        private RpcPeer peer;

        Dispatch(String name, RequestHandler handler, Frames.FrameDecoder frames, int maxInFlight, long idleMillis) {
            this.name = name;
            this.handler = handler;
            this.frames = frames;
            this.maxInFlight = maxInFlight;
            this.idleMillis = idleMillis;
            this.probe = RpcProbes.forServer(name);
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            this.peer = new ChannelPeer(ctx.channel());
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            probe.connectionOpened();
            ctx.fireChannelActive();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent idle) {
                if (idle.state() == IdleState.ALL_IDLE && inFlight.get() == 0) {
                    LOG.debug("{}: closing connection from {}: nothing either way for {} ms", name,
                            ctx.channel().remoteAddress(), idleMillis);
                    ctx.close();
                    return;
                }
                if (idle.state() == IdleState.READER_IDLE && frames.hasPartialFrame()) {
                    LOG.warn("{}: closing connection from {}: incomplete frame and no bytes for too long", name,
                            ctx.channel().remoteAddress());
                    ctx.close();
                    return;
                }
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            if (!ctx.channel().isActive()) {
                // Frames the decoder still held when the connection closed (it hands them on before
                // the close is seen here): nobody can be answered, and the server may be closed.
                frame.release();
                return;
            }
            if (inFlight.get() >= maxInFlight || !waiting.isEmpty()) {
                waiting.add(frame);
                ctx.channel().config().setAutoRead(false);
                return;
            }
            dispatch(frame);
        }

        private void dispatch(ByteBuf frame) {
            inFlight.incrementAndGet();
            try {
                RequestDispatch.dispatch(name, peer, frame, handler, probe, answered);
            } catch (ProtocolException e) {
                inFlight.decrementAndGet();
                LOG.warn("{}: closing connection from {}: {}", name, ctx.channel().remoteAddress(), e.getMessage());
                ctx.close();
            } finally {
                frame.release();
            }
        }

        /** One request was answered (any thread): when the connection was full, let waiting frames in. */
        private void answered() {
            if (inFlight.decrementAndGet() == maxInFlight - 1) {
                ctx.executor().execute(this::drain);
            }
        }

        private void drain() {
            while (!waiting.isEmpty() && inFlight.get() < maxInFlight && ctx.channel().isActive()) {
                dispatch(waiting.poll());
            }
            if (waiting.isEmpty() && ctx.channel().isActive()) {
                ctx.channel().config().setAutoRead(true);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            probe.connectionClosed();
            for (ByteBuf frame = waiting.poll(); frame != null; frame = waiting.poll()) {
                frame.release();
            }
            handler.connectionClosed(peer);
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // Oversized frames and socket errors end up here: drop this peer, keep serving the rest.
            LOG.warn("{}: closing connection from {}: {}", name, ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }
}
