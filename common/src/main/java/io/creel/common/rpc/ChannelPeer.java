package io.creel.common.rpc;

import io.creel.common.security.RpcSecurity;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A {@code creel://} client: one Netty channel of an {@link RpcServer}. */
final class ChannelPeer implements RpcPeer {
    private final Channel channel;

    ChannelPeer(Channel channel) {
        this.channel = channel;
    }

    @Override
    public String remote() {
        return String.valueOf(channel.remoteAddress());
    }

    @Override
    public io.creel.common.security.Identity identity() {
        return channel.attr(RpcSecurity.IDENTITY).get();
    }

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    @Override
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        return channel.eventLoop().schedule(task, delay, unit);
    }

    @Override
    public void send(ByteBuf frame) {
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    @Override
    public void send(ByteBuf header, ByteBuffer memory, PayloadCheck check) {
        if (RpcSecurity.isEncrypted(channel)) {
            // TLS encrypts buffers, not file regions: copy, and check the bytes once they are copied.
            RpcPeer.super.send(header, memory, check);
            return;
        }
        ByteBuffer head = ByteBuffer.allocate(header.readableBytes());
        header.readBytes(head);
        header.release();
        channel.writeAndFlush(new PayloadRegion(head.flip(), memory.slice(), check), channel.voidPromise());
    }

    @Override
    public String toString() {
        return "connection from " + remote();
    }
}
