package io.creel.common.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Named credentials: the file an administrator hands out, and the handshake that proves one
 * (HELLO version 2) to a server that holds only the cluster secret.
 */
class CredentialTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @TempDir
    Path dir;

    private ClusterSecret cluster(String name, String value) throws IOException {
        return ClusterSecret.read(TestSecrets.write(dir.resolve(name), value));
    }

    /** Runs the whole handshake; returns who the server says the client is. */
    private static Identity handshake(ClientAuthentication client, ServerAuthentication server) {
        ByteBuf hello = client.hello(ALLOC);
        try {
            assertEquals(ServerAuthentication.helloBytes(hello), hello.readableBytes());
            ByteBuf challenge = server.challenge(hello, ALLOC);
            ByteBuf proof = client.answerChallenge(challenge, ALLOC);
            ByteBuf accepted = server.accept(proof, ALLOC);
            client.readVerdict(accepted);
            challenge.release();
            proof.release();
            accepted.release();
            return server.identity();
        } finally {
            hello.release();
        }
    }

    @Test
    void anIssuedCredentialWrittenAndReadBackProvesItsNameToAServerWithTheClusterSecret() throws IOException {
        ClusterSecret s = cluster("secret", "correct horse battery staple");
        Credential issued = Credential.issue(s, "alice");
        Path file = dir.resolve("alice.credential");
        issued.write(file);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        Credential read = Credential.read(file);
        assertEquals("alice", read.name());
        assertEquals(issued.idText(), read.idText());

        ServerAuthentication server = new ServerAuthentication(s);
        assertNull(server.identity(), "nobody before the proof");
        assertEquals(Identity.named("alice", issued.idText()), handshake(new ClientAuthentication(read), server));
        assertEquals(Identity.CLUSTER, handshake(new ClientAuthentication(s), new ServerAuthentication(s)));

        CreelException again = assertThrows(CreelException.class, () -> issued.write(file));
        assertTrue(again.getMessage().contains("exists already"), again.getMessage());
    }

    @Test
    void aCredentialOfAnotherClusterOrAnotherNameIsRefused() throws IOException {
        ClusterSecret ours = cluster("ours", "correct horse battery staple");
        ClusterSecret theirs = cluster("theirs", "incorrect horse battery staple");
        Credential foreign = Credential.issue(theirs, "alice");
        HandshakeFailure e = assertThrows(HandshakeFailure.class,
                () -> handshake(new ClientAuthentication(foreign), new ServerAuthentication(ours)));
        assertEquals("its proof of identity alice's credential is wrong (a wrong secret, or a credential of another "
                + "cluster?)", e.getMessage());

        // Alice's key with Bob's name in the HELLO: the key a name derives to is not alice's.
        Credential alice = Credential.issue(ours, "alice");
        Path f = dir.resolve("alice");
        alice.write(f);
        String text = Files.readString(f).replace("identity=alice", "identity=bob");
        Path forged = dir.resolve("forged");
        Files.writeString(forged, text);
        Files.setPosixFilePermissions(forged, PosixFilePermissions.fromString("rw-------"));
        e = assertThrows(HandshakeFailure.class,
                () -> handshake(new ClientAuthentication(Credential.read(forged)), new ServerAuthentication(ours)));
        assertTrue(e.getMessage().startsWith("its proof of identity bob's credential is wrong"), e.getMessage());
    }

    @Test
    void theSuperusersNameIsNoCredentialsAndBadNamesAreRefused() throws IOException {
        ClusterSecret s = cluster("s", "correct horse battery staple");
        assertEquals(ErrorCode.INVALID_ARGUMENT, assertThrows(CreelException.class,
                () -> Credential.issue(s, Identity.SUPERUSER)).code());
        for (String bad : new String[] {"", "-rf", "a b", "x".repeat(65), "ünï", "a/b"}) {
            assertEquals(ErrorCode.INVALID_ARGUMENT, assertThrows(CreelException.class,
                    () -> Credential.issue(s, bad)).code(), bad);
        }
    }

    @Test
    void malformedOrExposedCredentialFilesFailConfigurationNamingTheFile() throws IOException {
        ClusterSecret s = cluster("s", "correct horse battery staple");
        Credential c = Credential.issue(s, "app.etl-1");
        Path good = dir.resolve("good");
        c.write(good);
        String text = Files.readString(good);
        String[][] cases = {
                {"no identity", text.replaceAll("identity=.*\n", ""), "it has no identity= line"},
                {"no id", text.replaceAll("\nid=.*\n", "\n"), "it has no id= line"},
                {"bad hex", text.replaceAll("id=.*\n", "id=zz\n"), "its id is not hex"},
                {"short secret", text.replaceAll("secret=.*\n", "secret=AAAA\n"), "its secret 32"},
                {"garbage", "hello world\n", "is not key=value"},
                {"bad name", text.replace("identity=app.etl-1", "identity=a b"), "only letters"},
        };
        for (String[] k : cases) {
            Path f = dir.resolve(k[0].replace(' ', '-'));
            Files.writeString(f, k[1], StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
            CreelException e = assertThrows(CreelException.class, () -> Credential.read(f), k[0]);
            assertEquals(ErrorCode.CONFIGURATION, e.code(), k[0]);
            assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains(k[2])
                    && e.getMessage().contains(SecurityKeys.CREDENTIAL_FILE.name()), k[0] + ": " + e.getMessage());
        }
        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(assertThrows(CreelException.class, () -> Credential.read(good)).getMessage()
                .contains("readable by every user"));
        CreelException missing = assertThrows(CreelException.class, () -> Credential.read(dir.resolve("nope")));
        assertEquals(ErrorCode.CONFIGURATION, missing.code());
    }
}
