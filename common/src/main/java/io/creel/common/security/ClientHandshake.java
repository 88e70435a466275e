package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client's end of the {@link Handshake}: sends HELLO as soon as the connection is up, proves the
 * secret, checks the server's proof, then removes itself. {@link #done()} completes when both ends are
 * proven and fails with UNAUTHENTICATED (saying what the server answered, or what went wrong) otherwise;
 * the connection is then closed.
 */
public final class ClientHandshake extends ByteToMessageDecoder {
    private enum State { CHALLENGE, VERDICT, DONE }

    private final String server;
    private final ClusterSecret secret;
    private final long timeoutMillis;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final byte[] clientNonce = Handshake.nonce();
    private byte[] serverNonce;
    private State state = State.CHALLENGE;
    private ScheduledFuture<?> timer;

    /**
     * @param server  the server's address, for messages
     * @param timeout time allowed for the whole handshake
     */
    public ClientHandshake(String server, ClusterSecret secret, Duration timeout) {
        this.server = server;
        this.secret = secret;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
    }

    /** Completes once both ends have proven the secret; fails with UNAUTHENTICATED otherwise. */
    public CompletableFuture<Void> done() {
        return done;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        timer = ctx.executor().schedule(() -> fail(ctx, "no answer to the authentication handshake within "
                + timeoutMillis + " ms"), timeoutMillis, TimeUnit.MILLISECONDS);
        ctx.writeAndFlush(Handshake.opening(ctx.alloc(), clientNonce));
        super.channelActive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        fail(ctx, "the server closed the connection during the authentication handshake (is authentication on "
                + "there, and is this the server's port?)");
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state != State.DONE) {
            fail(ctx, "the authentication handshake failed: " + cause);
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.DONE) {
            in.skipBytes(in.readableBytes()); // failed and closing
            return;
        }
        if (state == State.CHALLENGE) {
            if (in.isReadable() && in.getUnsignedByte(in.readerIndex()) == Handshake.REFUSED) {
                readRefusal(ctx, in); // refused before the challenge: a bad HELLO, a timeout, no TLS
                return;
            }
            if (in.readableBytes() < Handshake.OPENING) {
                return;
            }
            try {
                serverNonce = Handshake.readOpening(in, "the server's CHALLENGE");
            } catch (Handshake.HandshakeException e) {
                fail(ctx, e.getMessage() + " (is authentication on there, and is this the server's port?)");
                return;
            }
            ctx.writeAndFlush(ctx.alloc().buffer(Handshake.PROOF)
                    .writeBytes(secret.proof(ClusterSecret.Role.CLIENT, clientNonce, serverNonce)));
            state = State.VERDICT;
        }
        if (state == State.VERDICT) {
            if (!in.isReadable()) {
                return;
            }
            int verdict = in.getUnsignedByte(in.readerIndex());
            if (verdict == Handshake.ACCEPTED) {
                if (in.readableBytes() < 1 + Handshake.PROOF) {
                    return;
                }
                in.skipBytes(1);
                byte[] claimed = new byte[Handshake.PROOF];
                in.readBytes(claimed);
                if (!secret.verify(ClusterSecret.Role.SERVER, clientNonce, serverNonce, claimed)) {
                    fail(ctx, "the server's proof of the cluster secret is wrong (a different secret, or not a "
                            + "Creel server of this cluster)");
                    return;
                }
                state = State.DONE;
                ctx.pipeline().remove(this);
                done.complete(null);
            } else if (verdict == Handshake.REFUSED) {
                readRefusal(ctx, in);
            } else {
                fail(ctx, "the server answered the authentication proof with " + verdict + ", neither accepted "
                        + "nor refused");
            }
        }
    }

    /** A REFUSED message, once it is all there: fails with the server's reason. */
    private void readRefusal(ChannelHandlerContext ctx, ByteBuf in) {
        if (in.readableBytes() < 3) {
            return;
        }
        int length = in.getUnsignedShort(in.readerIndex() + 1);
        if (in.readableBytes() < 3 + length) {
            return;
        }
        in.skipBytes(3);
        fail(ctx, in.readCharSequence(length, StandardCharsets.UTF_8).toString());
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        if (done.isDone()) {
            return;
        }
        state = State.DONE;
        done.completeExceptionally(new CreelException(ErrorCode.UNAUTHENTICATED,
                "cannot authenticate to " + server + ": " + why));
        ctx.close();
    }
}
