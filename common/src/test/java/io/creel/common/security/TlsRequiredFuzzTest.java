package io.creel.common.security;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The first handler of a TLS server's connection given hostile bytes in hostile pieces. Whatever
 * arrives: no byte reaches the protocol behind it without a completed TLS handshake; a plain peer
 * gets at most one answer, the one it can read (a REFUSED handshake message to an authentication
 * HELLO, an UNAUTHENTICATED error frame with its request's opcode and id to a request, nothing to an
 * unknown opcode) saying the port requires TLS, and is disconnected; a TLS record goes to the TLS
 * engine, which may only fail with an {@link SSLException}; and no connection outlives the handshake
 * timeout without a completed handshake.
 */
class TlsRequiredFuzzTest {
    private static final long TIMEOUT_MS = 10_000;
    private static final SslContext SERVER = serverContext();

    private static SslContext serverContext() {
        try {
            Path dir = Files.createTempDirectory("creel-tls-fuzz");
            TestCertificates certs = TestCertificates.make(dir, "fuzz");
            return TlsContexts.of(CreelConf.of(Map.of(
                    SecurityKeys.TLS_ENABLED.name(), "true",
                    SecurityKeys.TLS_CERT.name(), certs.cert.toString(),
                    SecurityKeys.TLS_KEY.name(), certs.key.toString(),
                    SecurityKeys.TLS_PROVIDER.name(), "jdk"))).server();
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the fuzz test's certificate: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted making the fuzz test's certificate", e);
        }
    }

    // TLS record headers (handshake, application data) and the authentication HELLO's magic: the three ways in.
    @DictionaryEntries({"\u0016\u0003\u0001", "\u0017\u0003\u0003", "CRAU"})
    @FuzzTest(maxDuration = "15s")
    void aPlainPeerGetsOneClearAnswerAndNoBytePassesWithoutTls(FuzzedDataProvider data) {
        Behind behind = new Behind();
        EmbeddedChannel ch = new EmbeddedChannel(new TlsRequired("fuzz", SERVER, TIMEOUT_MS), behind);
        ByteBuf sent = Unpooled.buffer();
        try {
            boolean handedToTls = false;
            while (data.remainingBytes() > 0 && ch.isActive()) {
                byte[] piece = data.consumeBytes(data.consumeInt(1, 256));
                sent.writeBytes(piece);
                ch.writeInbound(Unpooled.wrappedBuffer(piece));
                handedToTls |= ch.pipeline().get(SslHandler.class) != null;
            }
            // An engine that refused the bytes closed the connection, and closing empties the pipeline.
            handedToTls |= behind.heardFromTls;
            boolean openBeforeTimeout = ch.isActive();
            List<ByteBuf> answers = new ArrayList<>();
            for (Object o; (o = ch.readOutbound()) != null; ) {
                answers.add((ByteBuf) o);
            }
            try {
                check(sent, handedToTls, openBeforeTimeout, answers, behind);
            } finally {
                answers.forEach(ReferenceCountUtil::release);
            }
            ch.advanceTimeBy(TIMEOUT_MS + 1, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            if (ch.isActive()) {
                throw new IllegalStateException("a connection without a TLS handshake outlived the handshake timeout");
            }
            behind.checkNothingPassed();
        } finally {
            sent.release();
            ch.finishAndReleaseAll();
        }
    }

    private static void check(ByteBuf sent, boolean handedToTls, boolean open, List<ByteBuf> answers, Behind behind) {
        behind.checkNothingPassed();
        int n = sent.readableBytes();
        if (n < 5) {
            expect(!handedToTls && open && answers.isEmpty(), "fewer than a TLS record header: waits, says nothing");
            return;
        }
        if (SslHandler.isEncrypted(sent, false)) {
            expect(handedToTls, "a TLS record goes to the TLS engine");
            for (ByteBuf a : answers) {
                if (!a.isReadable()) {
                    continue; // the engine flushes with an empty buffer
                }
                // Only the engine speaks now: a TLS record (a handshake message or an alert), never a plain answer.
                expect(a.readableBytes() >= 5 && SslHandler.isEncrypted(a, false), "the TLS engine's answer is TLS");
            }
            return;
        }
        expect(!handedToTls, "plain bytes never reach the TLS engine");
        if (sent.getInt(0) == Handshake.MAGIC) {
            expect(!open && answers.size() == 1, "an authentication HELLO gets one answer and the connection is closed");
            ByteBuf a = answers.get(0);
            expect(a.readUnsignedByte() == Handshake.REFUSED, "the answer is REFUSED");
            int len = a.readUnsignedShort();
            expect(len == a.readableBytes(), "the refusal's length is its message's");
            expect(a.toString(a.readerIndex(), len, StandardCharsets.UTF_8).contains("requires TLS"),
                    "the refusal says TLS is required");
            return;
        }
        if (n < Frame.HEADER) {
            expect(open && answers.isEmpty(), "a request header still coming: waits, says nothing");
            return;
        }
        Opcode op = Opcode.ofCode(sent.getUnsignedByte(Frame.LENGTH_FIELD));
        expect(!open, "a plain request is answered at most once and the connection closed");
        if (op == null) {
            expect(answers.isEmpty(), "a frame of no known opcode gets no answer");
            return;
        }
        expect(answers.size() == 1, "a plain request gets exactly one answer");
        ByteBuf a = answers.get(0);
        expect(a.readInt() == a.readableBytes(), "the answer's length field is its length");
        expect(a.readUnsignedByte() == op.code(), "the answer carries the request's opcode");
        expect(a.readUnsignedByte() == (Frame.FLAG_RESPONSE | Frame.versionFlags()), "the answer is a response");
        expect(a.readLong() == sent.getLong(Frame.LENGTH_FIELD + 2), "the answer carries the request's id");
        expect(a.readUnsignedShort() == ErrorCode.UNAUTHENTICATED.code(), "the answer is UNAUTHENTICATED");
        expect(Wire.readString(a, "message").contains("requires TLS"), "the answer says TLS is required");
    }

    private static void expect(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("violated: " + what);
        }
    }

    /** Stands for the protocol behind TLS: records whatever gets through, and the errors that reach it. */
    private static final class Behind extends ChannelInboundHandlerAdapter {
        private int passed;
        private Throwable unexpected;
        private boolean heardFromTls;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent || evt instanceof SslCloseCompletionEvent) {
                heardFromTls = true;
            }
            ReferenceCountUtil.release(evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            passed++;
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // The TLS engine refusing bytes is its job; anything else is TlsRequired failing.
            for (Throwable t = cause; t != null; t = t.getCause()) {
                if (t instanceof SSLException) {
                    heardFromTls = true;
                    ctx.close();
                    return;
                }
            }
            // Thrown here Netty would only log it: kept for the check instead.
            if (unexpected == null) {
                unexpected = cause;
            }
            ctx.close();
        }

        void checkNothingPassed() {
            if (unexpected != null) {
                throw new IllegalStateException("the pipeline failed with " + unexpected, unexpected);
            }
            expect(passed == 0, "no byte reaches the protocol without a completed TLS handshake");
        }
    }
}
