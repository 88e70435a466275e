package io.creel.storage.nvmf.tcp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The event loops queue pairs run on and the socket channel type that matches them. Either borrowed
 * (the process's own loops, e.g. Creel's epoll loops; {@link #close()} leaves them alone) or owned.
 */
public final class NvmeTcpEventLoops implements AutoCloseable {
    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channelType;
    private final boolean owned;

    private NvmeTcpEventLoops(EventLoopGroup group, Class<? extends SocketChannel> channelType, boolean owned) {
        this.group = group;
        this.channelType = channelType;
        this.owned = owned;
    }

    /** Borrows {@code group}, whose loops must drive {@code channelType} sockets. */
    public static NvmeTcpEventLoops of(EventLoopGroup group, Class<? extends SocketChannel> channelType) {
        return new NvmeTcpEventLoops(group, channelType, false);
    }

    /** Starts {@code threads} NIO event loops (daemon threads named after {@code name}), closed with this object. */
    public static NvmeTcpEventLoops nio(int threads, String name) {
        return new NvmeTcpEventLoops(new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true),
                NioIoHandler.newFactory()), NioSocketChannel.class, true);
    }

    public EventLoopGroup group() {
        return group;
    }

    public Class<? extends SocketChannel> channelType() {
        return channelType;
    }

    /** Stops owned loops, waiting up to 5 s for them; borrowed ones are left running. */
    @Override
    public void close() {
        if (owned) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }
}
