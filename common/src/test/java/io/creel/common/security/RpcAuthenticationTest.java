package io.creel.common.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcClient;
import io.creel.common.rpc.RpcServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster-secret authentication on the frame protocol: both ends prove the secret before any request
 * is served; a client without it, with another one, or a server without it, fails with one clear
 * UNAUTHENTICATED error, and a silent peer is dropped after the handshake timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpcAuthenticationTest {
    /** Answers LOOKUP with the path's length. */
    private static final RequestHandler LENGTHS = call -> {
        LookupRequest r = LookupRequest.decode(call.body());
        call.reply(new RegisterReply(r.path().length(), 0));
    };

    @TempDir
    Path dir;
    private EventLoops loops;
    private RpcServer server;

    @BeforeEach
    void loops() {
        loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2"), "auth-test");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        loops.close();
    }

    private Path secretFile(String name, String secret) throws IOException {
        return TestSecrets.write(dir.resolve(name), secret);
    }

    private static RpcSecurity security(Path secret, String handshakeTimeout) {
        return RpcSecurity.of(CreelConf.of(Map.of(SecurityKeys.SECRET_FILE.name(), secret.toString(),
                SecurityKeys.HANDSHAKE_TIMEOUT.name(), handshakeTimeout)));
    }

    private void serve(RpcSecurity security) {
        server = RpcServer.start("test server", "127.0.0.1", 0, loops, 1 << 20, Duration.ofSeconds(30), security,
                LENGTHS);
    }

    private CompletableFuture<RpcClient> connect(RpcSecurity security) {
        return RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops, 1 << 20, Duration.ofSeconds(5),
                Duration.ofSeconds(10), security);
    }

    private static CreelException failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        assertTrue(e.getCause() instanceof CreelException, "a CreelException: " + e.getCause());
        return (CreelException) e.getCause();
    }

    @Test
    void clientsWithTheSecretAreServedAndTheConnectionCarriesManyRequests() throws IOException {
        Path secret = secretFile("secret", "correct horse battery staple");
        serve(security(secret, "10s"));
        try (RpcClient c = connect(security(secret, "10s")).join()) {
            for (int i = 0; i < 100; i++) {
                assertEquals(1 + i, c.call(Opcode.LOOKUP, new LookupRequest("/" + "x".repeat(i), false),
                        RegisterReply::decode).join().serverId());
            }
        }
    }

    @Test
    void aClientWithAnotherSecretIsRefusedWithTheServersReason() throws IOException {
        serve(security(secretFile("secret", "correct horse battery staple"), "10s"));
        CreelException e = failure(connect(security(secretFile("other", "incorrect horse battery staple"), "10s")));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().contains("test server refused the connection")
                && e.getMessage().contains("proof of the cluster secret is wrong"), e.getMessage());
    }

    @Test
    void aClientWithoutASecretGetsAnErrorReplyNamingTheKey() throws IOException {
        serve(security(secretFile("secret", "correct horse battery staple"), "10s"));
        try (RpcClient c = connect(RpcSecurity.none()).join()) {
            CreelException e = failure(c.call(Opcode.LOOKUP, new LookupRequest("/x", false), RegisterReply::decode));
            assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
            assertTrue(e.getMessage().contains("requires authentication")
                    && e.getMessage().contains(SecurityKeys.SECRET_FILE.name()), e.getMessage());
            // ...and the connection is closed: nothing else is served on it.
            CreelException after = failure(c.call(Opcode.LOOKUP, new LookupRequest("/y", false),
                    RegisterReply::decode));
            assertEquals(ErrorCode.UNAVAILABLE, after.code(), after.getMessage());
        }
    }

    @Test
    void aClientWithASecretRefusesAServerThatHasNone() throws IOException {
        serve(RpcSecurity.none());
        CreelException e = failure(connect(security(secretFile("secret", "correct horse battery staple"), "10s")));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().contains("closed the connection during the authentication handshake"),
                e.getMessage());
    }

    @Test
    void aPeerThatSaysNothingIsDisconnectedAfterTheHandshakeTimeout() throws IOException {
        serve(security(secretFile("secret", "correct horse battery staple"), "300ms"));
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            InputStream in = s.getInputStream();
            byte[] got = in.readAllBytes(); // returns once the server closes
            assertEquals(1, got[0], "a REFUSED message comes before the close");
            String message = new String(got, 3, got.length - 3, StandardCharsets.UTF_8);
            assertTrue(message.contains("did not authenticate within 300 ms"), message);
        }
    }

    @Test
    void aPeerThatSendsGarbageInsteadOfAHelloIsRefused() throws IOException {
        serve(security(secretFile("secret", "correct horse battery staple"), "10s"));
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] got = s.getInputStream().readAllBytes();
            assertTrue(got.length > 0, "an answer before the close");
        }
    }

    @Test
    void aSecretFileThatIsShortOrReadableByEveryoneIsAConfigurationError() throws IOException {
        CreelException shortSecret = assertThrows(CreelException.class,
                () -> security(secretFile("short", "tooshort"), "10s"));
        assertEquals(ErrorCode.CONFIGURATION, shortSecret.code());
        assertTrue(shortSecret.getMessage().contains("at least 16"), shortSecret.getMessage());

        Path open = secretFile("open", "correct horse battery staple");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        CreelException readable = assertThrows(CreelException.class, () -> security(open, "10s"));
        assertTrue(readable.getMessage().contains("readable by every user"), readable.getMessage());

        CreelException missing = assertThrows(CreelException.class, () -> security(dir.resolve("none"), "10s"));
        assertTrue(missing.getMessage().contains(SecurityKeys.SECRET_FILE.name()), missing.getMessage());
    }

    @Test
    void withoutASecretFileThereIsNoAuthentication() {
        assertEquals(false, RpcSecurity.of(CreelConf.defaults()).authenticates());
    }
}
