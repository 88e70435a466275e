package io.creel.common.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the frame protocol: small replies and payloads sent from memory arrive intact over it, with
 * and without the cluster secret on top and with client certificates; a plain client, a client that
 * does not trust the server's authority, and a client without a certificate where one is required
 * each fail with one clear error.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RpcTlsTest {
    private static final byte[] PAYLOAD = new byte[3 << 20];

    /** LOOKUP "/data" answers with PAYLOAD sent from memory; any other path with its length. */
    private static final RequestHandler HANDLER = call -> {
        LookupRequest r = LookupRequest.decode(call.body());
        if (r.path().equals("/data")) {
            call.replyPayload(ByteBuffer.wrap(PAYLOAD), () -> null);
        } else {
            call.reply(new RegisterReply(r.path().length(), 0));
        }
    };

    @TempDir
    static Path dir;
    private static TestCertificates certs;
    private static TestCertificates rogue;
    private EventLoops loops;
    private RpcServer server;

    @BeforeAll
    static void certificates() throws Exception {
        new Random(3).nextBytes(PAYLOAD);
        certs = TestCertificates.make(dir, "cluster");
        rogue = TestCertificates.make(dir, "rogue");
    }

    @BeforeEach
    void loops() {
        loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2"), "tls-test");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        loops.close();
    }

    private static Map<String, String> tls(TestCertificates c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(SecurityKeys.TLS_ENABLED.name(), "true");
        m.put(SecurityKeys.TLS_PROVIDER.name(), "jdk");
        m.put(SecurityKeys.TLS_CERT.name(), c.cert.toString());
        m.put(SecurityKeys.TLS_KEY.name(), c.key.toString());
        m.put(SecurityKeys.TLS_TRUST.name(), c.ca.toString());
        return m;
    }

    private static Map<String, String> with(Map<String, String> m, String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(m);
        copy.put(key, value);
        return copy;
    }

    private void serve(Map<String, String> settings) {
        server = RpcServer.start("tls server", "127.0.0.1", 0, loops, 4 << 20, Duration.ofSeconds(30),
                RpcSecurity.of(CreelConf.of(settings)), HANDLER);
    }

    private CompletableFuture<RpcClient> connect(Map<String, String> settings) {
        return RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops, 4 << 20, Duration.ofSeconds(5),
                Duration.ofSeconds(20), RpcSecurity.of(CreelConf.of(settings)));
    }

    private static CreelException failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        assertTrue(e.getCause() instanceof CreelException, "a CreelException: " + e.getCause());
        return (CreelException) e.getCause();
    }

    private static void exercise(RpcClient c) {
        assertEquals(4, c.call(Opcode.LOOKUP, new LookupRequest("/abc", false), RegisterReply::decode).join().serverId());
        for (ByteBuffer dst : new ByteBuffer[] {ByteBuffer.allocateDirect(PAYLOAD.length),
                ByteBuffer.allocate(PAYLOAD.length)}) {
            c.callInto(Opcode.LOOKUP, new LookupRequest("/data", false), dst).join();
            byte[] got = new byte[PAYLOAD.length];
            dst.get(got);
            assertArrayEquals(PAYLOAD, got, "payload over TLS into a " + (dst.isDirect() ? "direct" : "heap") + " buffer");
        }
    }

    @Test
    void requestsAndPayloadsFromMemoryCrossTls() {
        serve(tls(certs));
        try (RpcClient c = connect(tls(certs)).join()) {
            exercise(c);
        }
    }

    @Test
    void theOpenSslEngineAndTheJdkEngineTalkToEachOther() {
        assertTrue(io.netty.handler.ssl.OpenSsl.isAvailable(), "netty-tcnative is on the test class path: "
                + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
        serve(with(tls(certs), SecurityKeys.TLS_PROVIDER.name(), "openssl"));
        try (RpcClient c = connect(with(tls(certs), SecurityKeys.TLS_PROVIDER.name(), "jdk")).join()) {
            exercise(c);
        }
        try (RpcClient c = connect(with(tls(certs), SecurityKeys.TLS_PROVIDER.name(), "openssl")).join()) {
            exercise(c);
        }
    }

    @Test
    void tlsCarriesTheAuthenticationHandshakeAndClientCertificates() throws IOException {
        Path secret = TestSecrets.write(dir.resolve("secret"), "a cluster secret for tls tests");
        Map<String, String> all = with(with(tls(certs), SecurityKeys.SECRET_FILE.name(), secret.toString()),
                SecurityKeys.TLS_CLIENT_AUTH.name(), "true");
        serve(all);
        try (RpcClient c = connect(all).join()) {
            exercise(c);
        }
        // A client whose certificate another authority signed is refused by the server.
        Map<String, String> stranger = with(with(tls(rogue), SecurityKeys.TLS_TRUST.name(), certs.ca.toString()),
                SecurityKeys.SECRET_FILE.name(), secret.toString());
        CreelException e = failure(connect(with(stranger, SecurityKeys.TLS_CLIENT_AUTH.name(), "true")));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
    }

    @Test
    void aPlainClientAgainstATlsPortIsToldTheServerRequiresTls() {
        serve(tls(certs));
        try (RpcClient c = connect(Map.of()).join()) {
            CreelException e = failure(c.call(Opcode.LOOKUP, new LookupRequest("/abc", false), RegisterReply::decode));
            assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("requires TLS"), e.getMessage());
        }
    }

    @Test
    void aPlainClientWithASecretAgainstATlsPortIsToldTheServerRequiresTls() throws IOException {
        Path secret = TestSecrets.write(dir.resolve("secret2"), "another secret for tls tests");
        serve(with(tls(certs), SecurityKeys.SECRET_FILE.name(), secret.toString()));
        CreelException e = failure(connect(Map.of(SecurityKeys.SECRET_FILE.name(), secret.toString())));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("requires TLS"), e.getMessage());
    }

    @Test
    void aPeerThatSendsNothingToATlsPortIsDisconnectedAfterTheHandshakeTimeout() throws IOException {
        serve(with(tls(certs), SecurityKeys.HANDSHAKE_TIMEOUT.name(), "300ms"));
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            assertEquals(-1, s.getInputStream().read(), "closed by the server without an answer");
        }
    }

    @Test
    void aTlsClientThatDoesNotTrustTheServersAuthorityRefusesIt() {
        serve(tls(certs));
        CreelException e = failure(connect(tls(rogue)));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("TLS handshake with"), e.getMessage());
    }

    @Test
    void withoutTheSecretAClientWithoutAnAcceptedCertificateIsStillToldTheServerRefusedIt() {
        // TLS 1.3: the client's handshake is over before the server has checked its certificate, so
        // the refusal arrives as an alert after it; the client must still say what happened.
        serve(with(tls(certs), SecurityKeys.TLS_CLIENT_AUTH.name(), "true"));
        Map<String, String> noCertificate = Map.of(SecurityKeys.TLS_ENABLED.name(), "true",
                SecurityKeys.TLS_PROVIDER.name(), "jdk", SecurityKeys.TLS_TRUST.name(), certs.ca.toString());
        Map<String, String> stranger = with(tls(rogue), SecurityKeys.TLS_TRUST.name(), certs.ca.toString());
        for (Map<String, String> client : List.of(noCertificate, stranger)) {
            CreelException e = failure(connect(client).thenCompose(c -> c.call(Opcode.LOOKUP,
                    new LookupRequest("/abc", false), RegisterReply::decode).whenComplete((r, t) -> c.close())));
            assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("refused") && e.getMessage().contains("certificate"), e.getMessage());
        }
    }

    @Test
    void aTlsClientAgainstAPlainPortFailsClearly() {
        serve(Map.of());
        CreelException e = failure(connect(tls(certs)));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("is TLS on there"), e.getMessage());
    }

    @Test
    void badTlsSettingsAreConfigurationErrorsNamingTheKey() {
        CreelException missing = assertThrows(CreelException.class, () -> RpcSecurity.of(CreelConf.of(
                with(tls(certs), SecurityKeys.TLS_CERT.name(), dir.resolve("nope.pem").toString()))));
        assertEquals(ErrorCode.CONFIGURATION, missing.code());
        assertTrue(missing.getMessage().contains(SecurityKeys.TLS_CERT.name()), missing.getMessage());

        CreelException garbage = assertThrows(CreelException.class, () -> RpcSecurity.of(CreelConf.of(
                with(tls(certs), SecurityKeys.TLS_CERT.name(), certs.key.toString()))));
        assertEquals(ErrorCode.CONFIGURATION, garbage.code(), garbage.getMessage());

        // A server needs a certificate; a client without one is fine.
        RpcSecurity clientOnly = RpcSecurity.of(CreelConf.of(Map.of(SecurityKeys.TLS_ENABLED.name(), "true",
                SecurityKeys.TLS_TRUST.name(), certs.ca.toString())));
        CreelException noCert = assertThrows(CreelException.class, () -> RpcServer.start("x", "127.0.0.1", 0, loops,
                1 << 20, Duration.ofSeconds(30), clientOnly, HANDLER));
        assertTrue(noCert.getMessage().contains("has no certificate"), noCert.getMessage());
    }
}
