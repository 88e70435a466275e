package io.creel.common.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event-loop threads of one process component and the socket implementation they drive:
 * native epoll where available (and allowed by {@code creel.net.io}), else NIO.
 */
public final class EventLoops implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);

    private final EventLoopGroup group;
    private final boolean epoll;

    private EventLoops(EventLoopGroup group, boolean epoll) {
        this.group = group;
        this.epoll = epoll;
    }

    /** Starts event loops named after {@code name}, sized by {@code creel.net.event.loops}. */
    public static EventLoops create(CreelConf conf, String name) {
        String mode = conf.get(ConfKeys.NET_IO);
        boolean useEpoll = switch (mode) {
            case "epoll" -> {
                if (!Epoll.isAvailable()) {
                    throw new CreelException(ErrorCode.CONFIGURATION, ConfKeys.NET_IO.name()
                            + "=epoll but native epoll is unavailable: " + Epoll.unavailabilityCause());
                }
                yield true;
            }
            case "nio" -> false;
            default -> Epoll.isAvailable();
        };
        int threads = conf.get(ConfKeys.NET_EVENT_LOOPS);
        if (threads == 0) {
            threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        }
        IoHandlerFactory factory = useEpoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
        LOG.debug("{}: {} event loops over {}", name, threads, useEpoll ? "epoll" : "nio");
        return new EventLoops(group, useEpoll);
    }

    public EventLoopGroup group() {
        return group;
    }

    /** Whether native epoll sockets are in use. */
    public boolean isEpoll() {
        return epoll;
    }

    public Class<? extends SocketChannel> socketChannel() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public Class<? extends ServerSocketChannel> serverSocketChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** Stops the threads, waiting a short while for them to finish. */
    @Override
    public void close() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
