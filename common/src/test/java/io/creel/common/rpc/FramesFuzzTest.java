package io.creel.common.rpc;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The frame layer of both ends given hostile bytes in hostile pieces: a server's frame decoder and
 * request dispatch, and a client's reply reader. Each either keeps going or closes the connection;
 * neither may throw out of the pipeline, leak a buffer it was given, or answer garbage with anything
 * but a well-formed frame.
 */
class FramesFuzzTest {
    private static final int MAX_FRAME = 64 << 10;

    /** Decodes what it is given as the opcode's request would be decoded, and answers. */
    private static final RequestHandler DECODING = call -> {
        LookupRequest r = LookupRequest.decode(call.body());
        call.reply(new RegisterReply(r.path().length(), 0));
    };

    @FuzzTest(maxDuration = "15s")
    void aServerConnectionSurvivesAnyBytes(FuzzedDataProvider data) {
        EmbeddedChannel ch = new EmbeddedChannel();
        Frames.FrameDecoder frames = Frames.decoder(MAX_FRAME);
        ch.pipeline().addLast("frames", frames);
        ch.pipeline().addLast("dispatch", new ChannelDispatch(frames));
        feed(ch, data);
        for (Object out = ch.readOutbound(); out != null; out = ch.readOutbound()) {
            ByteBuf reply = (ByteBuf) out;
            try {
                if (reply.readableBytes() < 4 || reply.getInt(0) != reply.readableBytes() - 4) {
                    throw new IllegalStateException("a reply frame whose length field is wrong: " + reply);
                }
            } finally {
                reply.release();
            }
        }
        ch.finishAndReleaseAll();
    }

    @FuzzTest(maxDuration = "15s")
    void aClientConnectionSurvivesAnyReplyBytes(FuzzedDataProvider data) {
        EmbeddedChannel ch = new EmbeddedChannel();
        RpcClient[] client = new RpcClient[1];
        ch.pipeline().addLast("replies", new ReplyReader(() -> client[0], MAX_FRAME));
        client[0] = new RpcClient(new HostPort("fuzz", 1), ch, Duration.ofSeconds(30));
        // Requests 1 to 4 wait for replies: decoded ones, and ones whose payload goes into a destination.
        List<CompletableFuture<?>> waiting = List.of(
                client[0].call(Opcode.LOOKUP, new LookupRequest("/a", false), RegisterReply::decode),
                client[0].callInto(Opcode.BLOCK_READ, new LookupRequest("/b", false), ByteBuffer.allocate(16)),
                client[0].callInto(Opcode.BLOCK_READ, new LookupRequest("/c", false), ByteBuffer.allocateDirect(20000)),
                client[0].call(Opcode.LOOKUP, new LookupRequest("/d", false), RegisterReply::decode));
        feed(ch, data);
        for (CompletableFuture<?> f : waiting) {
            if (f.isCompletedExceptionally()) {
                Throwable why = f.handle((v, e) -> e).join();
                if (!(why instanceof io.creel.common.error.CreelException)) {
                    throw new IllegalStateException("a reply failed a request with " + why, why);
                }
            }
        }
        client[0].close();
        ch.finishAndReleaseAll();
    }

    private static void feed(EmbeddedChannel ch, FuzzedDataProvider data) {
        while (data.remainingBytes() > 0 && ch.isActive()) {
            byte[] piece = data.consumeBytes(data.consumeInt(1, 4096));
            ch.writeInbound(Unpooled.wrappedBuffer(piece));
        }
    }

    /** The server's per-connection dispatch, as {@link RpcServer} builds it. */
    private static final class ChannelDispatch extends io.netty.channel.ChannelInboundHandlerAdapter {
        private final Frames.FrameDecoder frames;

        ChannelDispatch(Frames.FrameDecoder frames) {
            this.frames = frames;
        }

        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                RequestDispatch.dispatch("fuzz", new ChannelPeer(ctx.channel()), frame, DECODING);
            } catch (io.creel.common.protocol.ProtocolException e) {
                ctx.close();
            } finally {
                frame.release();
            }
        }

        @Override
        public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a too-long or corrupt frame: RpcServer closes the connection the same way
        }
    }
}
