package io.creel.common.security;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.creel.common.error.CreelException;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * Both ends of the authentication handshake given hostile bytes in hostile pieces: each either
 * waits for more, refuses and closes, or — never, without the secret — admits the peer. Nothing may
 * throw out of the pipeline.
 */
class HandshakeFuzzTest {
    private static final ClusterSecret SECRET = secret();

    private static ClusterSecret secret() {
        try {
            Path f = Files.createTempFile("creel-fuzz", ".secret",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(f, "a secret for the handshake fuzz test", StandardCharsets.US_ASCII);
            f.toFile().deleteOnExit();
            return ClusterSecret.read(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "15s")
    void aServerNeverAdmitsAPeerWithoutTheSecret(FuzzedDataProvider data) {
        ServerHandshake handshake = new ServerHandshake("fuzz", SECRET, Duration.ofSeconds(30));
        EmbeddedChannel ch = new EmbeddedChannel(handshake);
        feed(ch, data);
        if (ch.pipeline().get(ServerHandshake.class) == null && ch.isActive()) {
            throw new IllegalStateException("admitted a peer that cannot know the secret");
        }
        ch.finishAndReleaseAll();
    }

    @FuzzTest(maxDuration = "15s")
    void aClientNeverAcceptsAServerWithoutTheSecret(FuzzedDataProvider data) {
        ClientHandshake handshake = new ClientHandshake("fuzz:1", SECRET, Duration.ofSeconds(30));
        EmbeddedChannel ch = new EmbeddedChannel(handshake);
        feed(ch, data);
        if (handshake.done().isDone() && !handshake.done().isCompletedExceptionally()) {
            throw new IllegalStateException("accepted a server that cannot know the secret");
        }
        if (handshake.done().isCompletedExceptionally()) {
            Throwable why = handshake.done().handle((v, e) -> e).join();
            if (!(why instanceof CreelException)) {
                throw new IllegalStateException("failed with " + why, why);
            }
        }
        ch.finishAndReleaseAll();
    }

    private static void feed(EmbeddedChannel ch, FuzzedDataProvider data) {
        while (data.remainingBytes() > 0 && ch.isActive()) {
            ch.writeInbound(Unpooled.wrappedBuffer(data.consumeBytes(data.consumeInt(1, 256))));
        }
    }
}
