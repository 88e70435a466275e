package io.creel.storage.rdma.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.rpc.Frames;
import io.creel.common.rpc.RequestDispatch;
import io.creel.common.rpc.RequestHandler;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of one {@code rdma://} client, apart from DaRPC: each received frame goes to the
 * {@link RequestHandler} through {@link RequestDispatch}, as over TCP, and each reply a handler
 * writes goes back in the exchange of its request. The session's Netty channel (an
 * {@link EmbeddedChannel} that carries no bytes) is what handlers reply through and what names the
 * client for connection-scoped state (a namenode's write leases).
 *
 * <p>A malformed frame, or a request id reused while its first request is unanswered, drops the
 * session with a logged reason. A reply larger than a message is replaced by a LIMIT_EXCEEDED error
 * naming the key to raise. Replies may come from any thread.
 */
final class RpcSession {
    private static final Logger LOG = LoggerFactory.getLogger(RpcSession.class);

    /** One request and the reply slot it came with (a DaRPC server event). */
    interface Exchange {
        FrameMessage request();

        FrameMessage reply();

        /** Sends the reply now in {@link #reply()}. */
        void send() throws IOException;
    }

    private final String server;
    private final String peer;
    private final RequestHandler handler;
    private final int capacity;
    private final Consumer<String> onDrop;
    private final EmbeddedChannel channel;
    private final Map<Long, Exchange> waiting = new ConcurrentHashMap<>();
    /**
     * Replies are sent under the read lock, and dropping takes the write lock before the endpoint is
     * closed: a reply never posts on a queue pair that is being destroyed (a native crash, not an
     * exception).
     */
    private final ReentrantReadWriteLock sendLock = new ReentrantReadWriteLock();
    private boolean dropped;

    /**
     * @param server   the server, for log lines ("namenode")
     * @param peer     the client, for log lines
     * @param capacity largest frame a message holds
     * @param onDrop   disconnects the client (called once, with the reason, or null for a plain close)
     */
    RpcSession(String server, String peer, RequestHandler handler, int capacity, Consumer<String> onDrop) {
        this.server = server;
        this.peer = peer;
        this.handler = handler;
        this.capacity = capacity;
        this.onDrop = onDrop;
        this.channel = new EmbeddedChannel(new Replies(this));
    }

    /** The channel handlers see for this client. */
    Channel channel() {
        return channel;
    }

    /** Requests waiting for their replies. */
    int waiting() {
        return waiting.size();
    }

    /** A request arrived. */
    void received(Exchange exchange) {
        ByteBuf frame = exchange.request().frameAfterLength();
        if (frame == null || frame.readableBytes() < Frame.HEADER_AFTER_LENGTH) {
            if (frame != null) {
                frame.release();
            }
            drop("malformed frame (its length does not match what arrived)");
            return;
        }
        try {
            long id = frame.getLong(frame.readerIndex() + 2);
            if (waiting.putIfAbsent(id, exchange) != null) {
                throw new ProtocolException("request id " + id + " reused while the first is unanswered");
            }
            RequestDispatch.dispatch(server, channel, frame, handler);
        } catch (ProtocolException e) {
            drop(e.getMessage());
        } finally {
            frame.release();
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
        Opcode op = Opcode.ofCode(frame.getUnsignedByte(at + Frame.LENGTH_FIELD));
        ByteBuf error = Frames.error(channel.alloc(), op == null ? Opcode.STATUS : op, id,
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
        if (why != null) {
            LOG.warn("{}: closing rdma:// connection from {}: {}", server, peer, why);
        }
        handler.connectionClosed(channel);
        channel.close();
        onDrop.accept(why);
    }

    /**
     * The end of a session's channel: a frame written by a handler goes to {@link #reply}. Writes come
     * from many threads at once; nothing here touches the channel's own buffers (flushes stop here
     * too), which is what makes that safe.
     */
    private static final class Replies extends ChannelOutboundHandlerAdapter {
        private final RpcSession session;

        Replies(RpcSession session) {
            this.session = session;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                session.reply(frame);
                promise.trySuccess();
            } finally {
                frame.release();
            }
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            // every reply was sent in write()
        }
    }
}
