package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First in a TLS server's pipeline: looks at a connection's first bytes. A TLS record hands the
 * connection to an {@link SslHandler}; anything else is a plain peer, which gets one answer it can
 * read — an error reply to its request, or a REFUSED handshake message to its authentication HELLO —
 * saying this port needs TLS, is logged, and is disconnected (instead of the bare reset a TLS engine
 * would give it).
 */
final class TlsRequired extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(TlsRequired.class);
    /** A TLS record header: enough to tell TLS from anything else. */
    private static final int PROBE = 5;

    private final String name;
    private final SslContext tls;
    private final long handshakeTimeoutMillis;
    private boolean refused;

    /** The engine is made only for a peer that speaks TLS (an OpenSSL engine holds native memory). */
    TlsRequired(String name, SslContext tls, long handshakeTimeoutMillis) {
        this.name = name;
        this.tls = tls;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // A peer that sends nothing holds no connection for long: the TLS engine's own handshake
        // timeout starts only once its first record is here.
        ctx.executor().schedule(() -> {
            if (ctx.pipeline().context(this) != null && ctx.channel().isActive()) {
                LOG.warn("{}: closing connection from {}: no TLS handshake within {} ms", name,
                        ctx.channel().remoteAddress(), handshakeTimeoutMillis);
                ctx.close();
            }
        }, handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < PROBE) {
            return;
        }
        if (SslHandler.isEncrypted(in, false)) {
            // The bytes read so far go on to the TLS engine when this handler leaves.
            SslHandler ssl = tls.newHandler(ctx.alloc());
            ssl.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
            ctx.pipeline().replace(this, "tls", ssl);
            return;
        }
        String why = name + " at " + ctx.channel().localAddress() + " requires TLS (set "
                + SecurityKeys.TLS_ENABLED.name() + "=true and trust its certificate)";
        ByteBuf answer;
        int base = in.readerIndex();
        if (in.getInt(base) == Handshake.MAGIC) {
            answer = Handshake.refused(ctx.alloc(), why);
        } else if (in.readableBytes() >= Frame.HEADER) {
            RequestType op = OpcodeRegistry.installed().ofCode(in.getUnsignedByte(base + Frame.LENGTH_FIELD));
            answer = op == null ? null : Frames.error(ctx.alloc(), op, in.getLong(base + Frame.LENGTH_FIELD + 2),
                    new CreelException(ErrorCode.UNAUTHENTICATED, why));
        } else {
            return; // a request header is still coming; the peer waits for its answer
        }
        refused = true;
        in.skipBytes(in.readableBytes());
        LOG.warn("{}: refused connection from {}: it does not speak TLS", name, ctx.channel().remoteAddress());
        if (answer == null) {
            ctx.close();
        } else {
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
