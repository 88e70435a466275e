package io.creel.common.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two ends of the handshake apart from any transport (what the TCP handlers and the rdma://
 * transport share): the bytes they exchange, and every answer that must not authenticate.
 */
class AuthenticationEndsTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @TempDir
    Path dir;

    private ClusterSecret secret(String name, String value) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, value, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return ClusterSecret.read(f);
    }

    @Test
    void bothEndsWithTheSecretProveItToEachOtherInFourMessages() throws IOException {
        ClusterSecret s = secret("s", "correct horse battery staple");
        ClientAuthentication client = new ClientAuthentication(s);
        ServerAuthentication server = new ServerAuthentication(s);

        ByteBuf hello = client.hello(ALLOC);
        assertEquals(ServerAuthentication.HELLO_BYTES, hello.readableBytes());
        assertTrue(ServerAuthentication.opensHandshake(hello));
        ByteBuf challenge = server.challenge(hello, ALLOC);
        ByteBuf partial = challenge.retainedSlice(0, challenge.readableBytes() - 1);
        assertFalse(client.challengeReadable(partial), "a CHALLENGE cut short is waited for");
        partial.release();
        assertTrue(client.challengeReadable(challenge));
        ByteBuf proof = client.answerChallenge(challenge, ALLOC);
        assertEquals(ServerAuthentication.PROOF_BYTES, proof.readableBytes());
        ByteBuf accepted = server.accept(proof, ALLOC);
        assertTrue(client.verdictReadable(accepted));
        client.readVerdict(accepted); // returns: the server proved the secret too
        release(hello, challenge, proof, accepted);
    }

    @Test
    void aLongRefusalIsCutAtACharactersBoundary() {
        String reason = "a" + "ü".repeat(700); // then two-byte characters: a cut at 1,024 bytes splits one
        ByteBuf refusal = ServerAuthentication.refusal(ALLOC, reason);
        assertEquals(1, refusal.readUnsignedByte());
        int n = refusal.readUnsignedShort();
        assertEquals(1023, n, "the longest whole-character cut within 1,024 bytes");
        String got = refusal.readCharSequence(n, StandardCharsets.UTF_8).toString();
        assertEquals("a" + "ü".repeat(511), got, "no broken character at the end");
        refusal.release();
    }

    @Test
    void aWrongSecretFailsOnTheServerAndAServerThatCannotProveItFailsOnTheClient() throws IOException {
        ClientAuthentication client = new ClientAuthentication(secret("a", "correct horse battery staple"));
        ServerAuthentication server = new ServerAuthentication(secret("b", "incorrect horse battery staple"));
        ByteBuf challenge = server.challenge(client.hello(ALLOC), ALLOC);
        ByteBuf proof = client.answerChallenge(challenge, ALLOC);
        HandshakeFailure refused = assertThrows(HandshakeFailure.class, () -> server.accept(proof, ALLOC));
        assertEquals("its proof of the cluster secret is wrong (a different secret?)", refused.getMessage());

        // A server that only echoes the client's own proof back does not pass: the roles are in the proofs.
        ClusterSecret s = secret("s", "correct horse battery staple");
        ClientAuthentication c2 = new ClientAuthentication(s);
        ServerAuthentication s2 = new ServerAuthentication(s);
        ByteBuf clientProof = c2.answerChallenge(s2.challenge(c2.hello(ALLOC), ALLOC), ALLOC);
        ByteBuf reflected = Unpooled.buffer().writeByte(0).writeBytes(clientProof);
        HandshakeFailure wrong = assertThrows(HandshakeFailure.class, () -> c2.readVerdict(reflected));
        assertTrue(wrong.getMessage().startsWith("the server's proof of the cluster secret is wrong"),
                wrong.getMessage());
    }

    @Test
    void aRefusalCarriesTheServersReasonToTheClientAtEitherStep() throws IOException {
        ClientAuthentication client = new ClientAuthentication(secret("s", "correct horse battery staple"));
        ByteBuf early = ServerAuthentication.refusal(ALLOC, "namenode refused the connection: too slow");
        assertTrue(client.challengeReadable(early));
        HandshakeFailure e = assertThrows(HandshakeFailure.class, () -> client.answerChallenge(early, ALLOC));
        assertEquals("namenode refused the connection: too slow", e.getMessage());

        ServerAuthentication server = new ServerAuthentication(secret("t", "correct horse battery staple"));
        client.answerChallenge(server.challenge(new ClientAuthentication(secret("u", "x".repeat(20))).hello(ALLOC),
                ALLOC), ALLOC);
        ByteBuf late = ServerAuthentication.refusal(ALLOC, "no");
        assertFalse(client.verdictReadable(late.retainedSlice(0, 3)), "a refusal cut short is waited for");
        assertTrue(client.verdictReadable(late));
        assertEquals("no", assertThrows(HandshakeFailure.class, () -> client.readVerdict(late)).getMessage());
    }

    @Test
    void messagesOfAnotherProtocolOrVersionAreNamedAsSuch() throws IOException {
        ClusterSecret s = secret("s", "correct horse battery staple");
        ServerAuthentication server = new ServerAuthentication(s);
        ByteBuf http = Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n________________________",
                StandardCharsets.US_ASCII);
        assertFalse(ServerAuthentication.opensHandshake(http));
        ByteBuf v2 = new ClientAuthentication(s).hello(ALLOC);
        v2.setByte(4, 4);
        assertEquals("HELLO is of handshake version 4; this side speaks 1 to 3",
                assertThrows(HandshakeFailure.class, () -> server.challenge(v2, ALLOC)).getMessage());
        ByteBuf cut = new ClientAuthentication(s).hello(ALLOC);
        cut.setByte(4, 2); // says it names an identity, and does not
        assertEquals("its HELLO names an identity but is 0 bytes short of one",
                assertThrows(HandshakeFailure.class, () -> new ServerAuthentication(s).challenge(cut, ALLOC))
                        .getMessage());
        ByteBuf byCertificate = ClientAuthentication.byCertificate().hello(ALLOC);
        assertTrue(assertThrows(HandshakeFailure.class, () -> new ServerAuthentication(s).challenge(byCertificate,
                ALLOC)).getMessage().contains("claims the identity of a TLS client certificate, and it presented none"));

        ClientAuthentication client = new ClientAuthentication(s);
        ByteBuf notAChallenge = Unpooled.wrappedBuffer(new byte[ServerAuthentication.HELLO_BYTES]);
        HandshakeFailure e = assertThrows(HandshakeFailure.class, () -> client.answerChallenge(notAChallenge, ALLOC));
        assertTrue(e.getMessage().endsWith("(is authentication on there, and is this the server's port?)"),
                e.getMessage());
        assertEquals("the server answered the authentication proof with 7, neither accepted nor refused",
                assertThrows(HandshakeFailure.class, () -> {
                    ClientAuthentication c = new ClientAuthentication(s);
                    c.answerChallenge(new ServerAuthentication(s).challenge(c.hello(ALLOC), ALLOC), ALLOC);
                    c.readVerdict(Unpooled.buffer().writeByte(7));
                }).getMessage());
    }

    private static void release(ByteBuf... buffers) {
        for (ByteBuf b : buffers) {
            b.release();
        }
    }
}
