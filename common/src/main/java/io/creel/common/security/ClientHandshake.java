package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client's end of the {@link Handshake} on a TCP connection ({@link ClientAuthentication} over Netty): sends HELLO as soon as the connection is up, proves the
 * secret, checks the server's proof, then removes itself. {@link #done()} completes when both ends are
 * proven and fails with UNAUTHENTICATED (saying what the server answered, or what went wrong) otherwise;
 * the connection is then closed.
 */
public final class ClientHandshake extends ByteToMessageDecoder {
    private enum State { CHALLENGE, VERDICT, DONE }

    private final String server;
    private final long timeoutMillis;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final ClientAuthentication auth;
    private State state = State.CHALLENGE;
    private ScheduledFuture<?> timer;

    /**
     * @param server  the server's address, for messages
     * @param timeout time allowed for the whole handshake
     */
    public ClientHandshake(String server, ClusterSecret secret, Duration timeout) {
        this(server, new ClientAuthentication(secret), timeout);
    }

    /**
     * @param server  the server's address, for messages
     * @param auth    this end of the handshake (the cluster secret's or a credential's)
     * @param timeout time allowed for the whole handshake
     */
    public ClientHandshake(String server, ClientAuthentication auth, Duration timeout) {
        this.server = server;
        this.auth = auth;
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
        ctx.writeAndFlush(auth.hello(ctx.alloc()));
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
        try {
            if (state == State.CHALLENGE) {
                if (!auth.challengeReadable(in)) {
                    return;
                }
                ctx.writeAndFlush(auth.answerChallenge(in, ctx.alloc()));
                state = State.VERDICT;
            }
            if (state == State.VERDICT && auth.verdictReadable(in)) {
                auth.readVerdict(in);
                state = State.DONE;
                ctx.pipeline().remove(this);
                done.complete(null);
            }
        } catch (HandshakeFailure e) {
            fail(ctx, e.getMessage());
        }
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
