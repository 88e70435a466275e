package io.creel.common.security;

import io.creel.common.protocol.Frame;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's end of the {@link Handshake} on a TCP connection ({@link ServerAuthentication} over Netty): first in a connection's pipeline, it lets no byte reach
 * the frame decoder until the peer has proven it knows the cluster secret, then removes itself (the
 * connection costs nothing more per request). A refused peer gets one clear error — a REFUSED message,
 * or an error reply to the plain request it sent instead of a HELLO — is logged by address, and is
 * disconnected. So is a peer that does not finish within the handshake timeout.
 */
public final class ServerHandshake extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(ServerHandshake.class);

    private enum State { HELLO, PROOF, DONE, REFUSED }

    private final String name;
    private final ServerAuthentication auth;
    private final long timeoutMillis;
    private State state = State.HELLO;
    private ScheduledFuture<?> timer;

    /**
     * @param name    the server, for log lines and messages ("namenode")
     * @param timeout time allowed for the whole handshake
     */
    public ServerHandshake(String name, ClusterSecret secret, Duration timeout) {
        this.name = name;
        this.auth = new ServerAuthentication(secret);
        this.timeoutMillis = Math.max(1, timeout.toMillis());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            if (state != State.DONE && state != State.REFUSED && ctx.channel().isActive()) {
                refuse(ctx, "did not authenticate within " + timeoutMillis + " ms");
            }
        }, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.REFUSED) {
            in.skipBytes(in.readableBytes()); // closing: nothing more is read
            return;
        }
        try {
            if (state == State.HELLO) {
                if (in.readableBytes() < 4) {
                    return;
                }
                if (!ServerAuthentication.opensHandshake(in)) {
                    refusePlain(ctx, in);
                    return;
                }
                if (in.readableBytes() < ServerAuthentication.helloBytes(in)) {
                    return;
                }
                auth.certificateSubject(TlsContexts.subjectName(ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class)));
                ByteBuf challenge = auth.challenge(in, ctx.alloc());
                state = State.PROOF;
                ctx.writeAndFlush(challenge);
            }
            if (state == State.PROOF) {
                if (in.readableBytes() < ServerAuthentication.PROOF_BYTES) {
                    return;
                }
                ByteBuf accepted = auth.accept(in, ctx.alloc());
                state = State.DONE;
                ctx.channel().attr(RpcSecurity.IDENTITY).set(auth.identity());
                ctx.writeAndFlush(accepted);
                LOG.debug("{}: {} authenticated as {}", name, ctx.channel().remoteAddress(), auth.identity());
                // Whatever followed the proof (the first requests) goes on to the frame decoder.
                ctx.pipeline().remove(this);
            }
        } catch (HandshakeFailure e) {
            refuse(ctx, e.getMessage());
        }
    }

    /** Sends a REFUSED message, logs the peer, and closes once the message is out. */
    private void refuse(ChannelHandlerContext ctx, String why) {
        finish(ctx, why, ServerAuthentication.refusal(ctx.alloc(), name + " refused the connection: " + why));
    }

    /**
     * A peer that sent a request frame without authenticating: answered with an UNAUTHENTICATED error
     * reply to that request when its header can be read, so a client without a secret sees why.
     */
    private void refusePlain(ChannelHandlerContext ctx, ByteBuf in) {
        if (in.readableBytes() < Frame.HEADER) {
            return; // the rest of the header is still coming (the handshake timeout bounds the wait)
        }
        int base = in.readerIndex();
        RequestType op = OpcodeRegistry.installed().ofCode(in.getUnsignedByte(base + Frame.LENGTH_FIELD));
        long requestId = in.getLong(base + Frame.LENGTH_FIELD + 2);
        String why = "it sent a request without authenticating";
        ByteBuf reply = op == null ? ServerAuthentication.refusal(ctx.alloc(), name + " refused the connection: " + why)
                : Frames.error(ctx.alloc(), op, requestId, ServerAuthentication.requestWithoutAuthentication(
                        name + " at " + ctx.channel().localAddress()));
        finish(ctx, why, reply);
    }

    private void finish(ChannelHandlerContext ctx, String why, ByteBuf message) {
        LOG.warn("{}: refused connection from {}: {}", name, ctx.channel().remoteAddress(), why);
        state = State.REFUSED;
        ByteBuf rest = internalBuffer();
        rest.skipBytes(rest.readableBytes());
        ctx.writeAndFlush(message).addListener(ChannelFutureListener.CLOSE);
    }
}
