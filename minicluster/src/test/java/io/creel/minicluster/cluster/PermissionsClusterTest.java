package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.cli.AdminCommand;
import io.creel.cli.CliErrors;
import io.creel.cli.FsCommand;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectoryEntry;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.protocol.SetAccessRequest;
import io.creel.common.security.ClusterSecret;
import io.creel.common.security.Credential;
import io.creel.common.security.SecurityKeys;
import io.creel.common.security.TestSecrets;
import io.creel.namenode.NamenodeKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Identities and node permissions end to end, on a cluster of two namenode partitions with a
 * cluster secret: credentials issued with {@code admin credential create}, each identity working in
 * its own tree and refused PERMISSION_DENIED (naming identity and path) in another's, the
 * administrator allowed everything, chmod/chown, a restart keeping owners and credentials, and a
 * revocation refusing an open session's very next request.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PermissionsClusterTest {
    @Command(name = "creel", subcommands = {FsCommand.class, AdminCommand.class})
    static final class Root {
    }

    @TempDir
    Path tmp;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int cli(CreelConf conf, String... args) {
        CommandLine cmd = CliErrors.configure(new CommandLine(new Root()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        conf.explicitSettings().forEach((k, v) -> {
            all.add("--conf");
            all.add(k + "=" + v);
        });
        return cmd.execute(all.toArray(String[]::new));
    }

    private Clusters.Running start(Path secret, Path logDir) {
        return Clusters.start(b -> {
            b.dram(16L << 20).namenodes(2).set(SecurityKeys.SECRET_FILE, secret.toString());
            if (logDir != null) {
                b.set(NamenodeKeys.LOG_DIR, logDir.toString());
            }
        });
    }

    /** Issues a credential through the CLI, as an administrator would; returns the conf of its user. */
    private CreelConf issue(CreelConf admin, String name, String... groups) {
        Path file = tmp.resolve(name + ".credential");
        List<String> args = new ArrayList<>(List.of("admin", "credential", "create", name, "--out", file.toString()));
        if (groups.length > 0) {
            args.add("--groups");
            args.add(String.join(",", groups));
        }
        assertEquals(0, cli(admin, args.toArray(String[]::new)), err::toString);
        return userConf(admin, file);
    }

    /** What a user has: no cluster secret, a credential file. */
    private static CreelConf userConf(CreelConf admin, Path credential) {
        return admin.with(SecurityKeys.SECRET_FILE, "").with(SecurityKeys.CREDENTIAL_FILE, credential.toString());
    }

    private static CreelException failure(Supplier<CompletableFuture<?>> call) {
        CompletionException e = assertThrows(CompletionException.class, () -> call.get().join());
        assertTrue(e.getCause() instanceof CreelException, "a CreelException: " + e.getCause());
        return (CreelException) e.getCause();
    }

    /** {@code call} is refused PERMISSION_DENIED with a message naming {@code who} and {@code path}. */
    private static void denied(String who, String path, Supplier<CompletableFuture<?>> call) {
        CreelException e = failure(call);
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("identity " + who + " ") && e.getMessage().contains(path), e.getMessage());
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String read(CreelClient c, String path) {
        CreelNode n = c.lookup(path).join();
        ByteBuffer b = ByteBuffer.allocate((int) n.length());
        n.reader().read(b).join();
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    }

    private static void write(CreelClient c, String path, String text) {
        CreelNode f = c.create(path, NodeType.FILE).join();
        f.writer().write(bytes(text)).join();
        f.writer().close().join();
    }

    @Test
    void eachIdentityWorksInItsOwnTreeAndIsRefusedInAnothersWhileTheAdministratorMayDoAll() throws Exception {
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of permissions");
        try (Clusters.Running running = start(secret, null)) {
            CreelConf admin = running.cluster.clientConf();
            CreelConf aliceConf = issue(admin, "alice", "eng");
            CreelConf bobConf = issue(admin, "bob");
            CreelConf carolConf = issue(admin, "carol", "eng");
            assertEquals(0, cli(admin, "admin", "credential", "list"), err::toString);
            assertTrue(out.toString().matches("(?s).*alice +[0-9a-f]{32} +eng .* all.*"), out.toString());
            try (CreelClient alice = CreelClient.connect(aliceConf); CreelClient bob = CreelClient.connect(bobConf);
                 CreelClient carol = CreelClient.connect(carolConf); CreelClient root = CreelClient.connect(admin)) {
                // The administrator makes the homes (one top-level name: one partition, so moves between them work).
                root.create("/home", NodeType.DIRECTORY).join();
                root.create("/home/alice", NodeType.DIRECTORY).join();
                root.create("/home/bob", NodeType.DIRECTORY).join();
                root.setAccess("/home/alice", "alice", "", SetAccessRequest.KEEP).join();
                root.setAccess("/home/bob", "bob", "", SetAccessRequest.KEEP).join();
                assertEquals(new NodeAccess("alice", "creel", 0755), alice.lookup("/home/alice").join().info().access(),
                        "owned as chown made it, in the root's group, with the root's mode less the umask");
                alice.setAccess("/home/alice", "", "eng", 0750).join();
                write(alice, "/home/alice/f", "alice's data");
                alice.create("/home/alice/t", NodeType.TABLE).join();
                alice.putValue("/home/alice/t", "k", bytes("v1")).join();
                assertEquals(new NodeAccess("alice", "eng", 0640), alice.lookup("/home/alice/f").join().info().access(),
                        "a File inherits the group and the mode less the umask, without execute");
                write(bob, "/home/bob/f", "bob's data");
                denied("alice", "/home", () -> alice.create("/home/x", NodeType.DIRECTORY));

                // Bob, in none of alice's groups, is refused everything under /alice (mode 0750).
                denied("bob", "/home/alice", () -> bob.lookup("/home/alice/f"));
                denied("bob", "/home/alice", () -> bob.list("/home/alice"));
                denied("bob", "/home/alice", () -> bob.create("/home/alice/x", NodeType.FILE));
                denied("bob", "/home/alice", () -> bob.delete("/home/alice/f", false));
                denied("bob", "/home/alice", () -> bob.move("/home/alice/f", "/home/bob/stolen"));
                denied("bob", "/home/alice", () -> bob.openForAppend("/home/alice/f"));
                denied("bob", "/home/alice", () -> bob.putValue("/home/alice/t", "k", bytes("bob was here")));
                denied("bob", "/home/alice", () -> bob.getValue("/home/alice/t", "k"));
                denied("bob", "/home/alice", () -> bob.setAccess("/home/alice", "", "", 0777));
                // ... and alice in bob's tree (mode 0755: she may read, not write).
                assertEquals("bob's data", read(alice, "/home/bob/f"));
                denied("alice", "/home/bob", () -> alice.create("/home/bob/x", NodeType.FILE));
                denied("alice", "/home/bob", () -> alice.delete("/home/bob/f", false));
                denied("alice", "/home/bob/f", () -> alice.openForAppend("/home/bob/f"));
                denied("alice", "/home/bob", () -> alice.move("/home/alice/f", "/home/bob/f2"));
                denied("alice", "/home/bob", () -> alice.setAccess("/home/bob", "alice", "", SetAccessRequest.KEEP));

                // Carol, in group eng, reads alice's tree and may not write it.
                assertEquals("alice's data", read(carol, "/home/alice/f"));
                assertEquals(2, carol.list("/home/alice").join().size());
                assertEquals("v1", StandardCharsets.UTF_8.decode(carol.getValue("/home/alice/t", "k").join()).toString());
                denied("carol", "/home/alice/t", () -> carol.putValue("/home/alice/t", "k", bytes("carol")));
                denied("carol", "/home/alice", () -> carol.create("/home/alice/c", NodeType.FILE));

                // An ordered Table: scanning it is listing it; a key closed to carol comes without its value.
                alice.create("/home/alice/ot", NodeType.TABLE, io.creel.client.CreateOptions.defaults()
                        .withOrdered(true)).join();
                alice.putValue("/home/alice/ot", "a", bytes("1")).join();
                alice.putValue("/home/alice/ot", "b", bytes("2")).join();
                alice.setAccess("/home/alice/ot/b", "", "", 0600).join();
                List<DirectoryEntry> scanned = carol.scan("/home/alice/ot", "", 10).join();
                assertEquals(List.of("a", "b"), scanned.stream().map(DirectoryEntry::name).toList());
                assertEquals("1", new String(scanned.get(0).data(), StandardCharsets.UTF_8));
                assertNull(scanned.get(1).data(), "no value of a key carol may not read");
                denied("carol", "/home/alice/ot/b", () -> carol.scanValues("/home/alice/ot", "", 10));
                denied("bob", "/home/alice", () -> bob.scan("/home/alice/ot", "", 10));
                assertEquals(2, alice.scanValues("/home/alice/ot", "", 10).join().size());

                // A file alice closes to everyone else: bob and carol see it listed, cannot read it.
                write(alice, "/home/alice/private", "secret");
                alice.setAccess("/home/alice/private", "", "", 0600).join();
                CreelNode seen = carol.lookup("/home/alice/private").join();
                assertEquals(new NodeAccess("alice", "eng", 0600), seen.info().access());
                denied("carol", "/home/alice/private", () -> seen.reader().read(ByteBuffer.allocate(6)));

                // Alice works in her own tree: append, move, remove, values.
                CreelNode app = alice.openForAppend("/home/alice/f").join();
                app.writer().write(bytes("!")).join();
                app.writer().close().join();
                alice.move("/home/alice/f", "/home/alice/g").join();
                alice.putValue("/home/alice/t", "k", bytes("v2")).join();
                assertEquals("v2", StandardCharsets.UTF_8.decode(alice.getValue("/home/alice/t", "k").join()).toString());
                assertEquals("alice's data!", read(alice, "/home/alice/g"));
                alice.delete("/home/alice/private", false).join();
                denied("alice", "owner", () -> alice.setAccess("/home/alice/g", "bob", "", SetAccessRequest.KEEP));
                denied("alice", "group", () -> alice.setAccess("/home/alice/g", "", "ops", SetAccessRequest.KEEP));

                // The administrator may do anything, chown included.
                assertEquals("alice's data!", read(root, "/home/alice/g"));
                root.setAccess("/home/alice/g", "bob", "", SetAccessRequest.KEEP).join();
                assertEquals("bob", root.lookup("/home/alice/g").join().info().access().owner());
                // Bob owns it now, but may not reach it: /home/alice is closed to him.
                denied("bob", "/home/alice", () -> bob.setAccess("/home/alice/g", "", "", 0644));
                root.delete("/home/bob/f", false).join();
                assertEquals(List.of("g", "ot", "t"), root.list("/home/alice").join().stream().map(DirectoryEntry::name).sorted()
                        .toList());
                denied("bob", "FSCK", () -> bob.fsck("/"));
            }
            // The CLI shows and changes the same.
            out.getBuffer().setLength(0);
            assertEquals(0, cli(aliceConf, "fs", "chmod", "700", "/home/alice"), err::toString);
            assertEquals(0, cli(aliceConf, "fs", "stat", "/home/alice"), err::toString);
            assertTrue(out.toString().contains("owner:      alice") && out.toString().contains("mode:       0700 (rwx------)"),
                    out.toString());
            assertEquals(0, cli(aliceConf, "fs", "ls", "-l", "/home"), err::toString);
            assertTrue(out.toString().matches("(?s).*Directory +rwx------ alice eng .*alice/.*"), out.toString());
            err.getBuffer().setLength(0);
            assertEquals(1, cli(bobConf, "fs", "ls", "/home/alice"));
            assertTrue(err.toString().contains("identity bob may not") && err.toString().contains("/home/alice"),
                    err.toString());
            assertEquals(0, cli(admin, "fs", "chown", "carol:eng", "/home/alice"), err::toString);
        }
    }

    @Test
    void ownersModesAndCredentialsSurviveARestartAndARevocationRefusesTheOpenSessionsNextRequest() throws Exception {
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of permissions");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        try (Clusters.Running running = start(secret, logs)) {
            CreelConf admin = running.cluster.clientConf();
            CreelConf aliceConf = issue(admin, "alice");
            CreelConf bobConf = issue(admin, "bob");
            try (CreelClient alice = CreelClient.connect(aliceConf)) {
                for (String top : new String[] {"/a1", "/a2", "/a3", "/a4"}) { // both partitions
                    alice.create(top, NodeType.DIRECTORY).join();
                    alice.setAccess(top, "", "", 0700).join();
                    write(alice, top + "/f", "data of " + top);
                }
            }
            running.cluster.restartNamenode(0);
            running.cluster.restartNamenode(1);
            try (CreelClient alice = CreelClient.connect(aliceConf); CreelClient bob = CreelClient.connect(bobConf)) {
                for (String top : new String[] {"/a1", "/a2", "/a3", "/a4"}) {
                    assertEquals(new NodeAccess("alice", "creel", 0700), alice.lookup(top).join().info().access());
                    assertEquals("data of " + top, read(alice, top + "/f"));
                    denied("bob", top, () -> bob.lookup(top + "/f"));
                }

                // Revoked: the open session's next request is refused, on every partition.
                assertEquals("alice", alice.lookup("/a1").join().info().access().owner());
                try (CreelClient root = CreelClient.connect(admin)) {
                    root.admin().revokeCredential("alice").join();
                    long revokedAt = System.nanoTime();
                    for (String top : new String[] {"/a1", "/a2", "/a3", "/a4"}) {
                        CreelException e = failure(() -> alice.lookup(top));
                        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
                        assertTrue(e.getMessage().contains("identity alice's credential") && e.getMessage()
                                .contains("revoked"), e.getMessage());
                    }
                    assertTrue(System.nanoTime() - revokedAt < TimeUnit.SECONDS.toNanos(5),
                            "refused at once, with no wait for a timer");
                    assertEquals(ErrorCode.NOT_FOUND, failure(() -> root.admin().revokeCredential("alice")).code());
                }
            }
            running.cluster.restartNamenode(0);
            running.cluster.restartNamenode(1);
            try (CreelClient alice = CreelClient.connect(aliceConf)) {
                assertEquals(ErrorCode.UNAUTHENTICATED, failure(() -> alice.lookup("/a1")).code(),
                        "a revocation survives a restart");
            }
            // Issued again: the new file works, the old one stays refused.
            Path old = tmp.resolve("alice.credential");
            Files.move(old, tmp.resolve("alice.old"));
            CreelConf again = issue(admin, "alice");
            try (CreelClient alice = CreelClient.connect(again);
                 CreelClient stale = CreelClient.connect(userConf(admin, tmp.resolve("alice.old")))) {
                assertEquals("data of /a2", read(alice, "/a2/f"));
                CreelException e = failure(() -> stale.lookup("/a2"));
                assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
                assertTrue(e.getMessage().contains("issued again since"), e.getMessage());
            }
        }
    }

    @Test
    void unknownIdentitiesWrongSecretsAndBrokenCredentialFilesAreRefusedSayingWhy() throws Exception {
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of permissions");
        try (Clusters.Running running = start(secret, null)) {
            CreelConf admin = running.cluster.clientConf();
            // Derived from the right secret but never issued to the namenodes: not current there.
            Path unknown = tmp.resolve("mallory.credential");
            Credential.issue(ClusterSecret.read(secret), "mallory").write(unknown);
            try (CreelClient c = CreelClient.connect(userConf(admin, unknown))) {
                CreelException e = failure(() -> c.lookup("/"));
                assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
                assertTrue(e.getMessage().contains("identity mallory's credential"), e.getMessage());
            }
            // Issued by another cluster: the handshake fails.
            Path other = TestSecrets.write(tmp.resolve("other.secret"), "another cluster's secret, 32 bytes");
            Path foreign = tmp.resolve("foreign.credential");
            Credential.issue(ClusterSecret.read(other), "alice").write(foreign);
            try (CreelClient c = CreelClient.connect(userConf(admin, foreign))) {
                CreelException e = failure(() -> c.lookup("/"));
                assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
                assertTrue(e.getMessage().contains("credential is wrong"), e.getMessage());
            }
            // A broken file: CONFIGURATION naming it, before anything is sent.
            Path broken = tmp.resolve("broken.credential");
            Files.writeString(broken, "identity=alice\n");
            Files.setPosixFilePermissions(broken, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            try (CreelClient c = CreelClient.connect(userConf(admin, broken))) {
                CreelException e = failure(() -> c.lookup("/"));
                assertEquals(ErrorCode.CONFIGURATION, e.code());
                assertTrue(e.getMessage().contains(broken.toString()), e.getMessage());
            }
            // The credential requests are the administrator's: a user may not issue, list or revoke.
            CreelConf bob = issue(admin, "bob");
            try (CreelClient c = CreelClient.connect(bob)) {
                denied("bob", "CREDENTIAL_PUT", () -> c.admin().putCredential(new CredentialRecord("bob2",
                        "0".repeat(32), List.of(), 0)));
                denied("bob", "CREDENTIAL_LIST", () -> c.admin().credentials());
                denied("bob", "CREDENTIAL_REVOKE", () -> c.admin().revokeCredential("alice"));
            }
            err.getBuffer().setLength(0);
            assertEquals(1, cli(admin, "admin", "credential", "create", "creel", "--out", tmp.resolve("x").toString()));
            assertTrue(err.toString().contains("cluster's own identity"), err.toString());
        }
    }

    @Test
    void aTlsClientCertificatesSubjectIsAnIdentity() throws Exception {
        io.creel.common.security.TestCertificates certs = io.creel.common.security.TestCertificates.make(tmp, "perm");
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of permissions");
        java.util.Map<String, String> security = new java.util.LinkedHashMap<>(TestSecrets.tlsAndSecret(certs, secret));
        security.put(SecurityKeys.TLS_CLIENT_AUTH.name(), "true");
        try (Clusters.Running running = Clusters.start(b -> {
            b.dram(8L << 20);
            security.forEach(b::set);
        })) {
            CreelConf admin = running.cluster.clientConf();
            io.creel.common.security.TestCertificates dave = certs.client("dave");
            io.creel.common.security.TestCertificates erin = certs.client("erin");
            CreelConf daveConf = admin.with(SecurityKeys.SECRET_FILE, "").with(SecurityKeys.TLS_IDENTITY, "true")
                    .with(SecurityKeys.TLS_CERT, dave.cert.toString()).with(SecurityKeys.TLS_KEY, dave.key.toString());
            CreelConf erinConf = daveConf.with(SecurityKeys.TLS_CERT, erin.cert.toString())
                    .with(SecurityKeys.TLS_KEY, erin.key.toString());
            try (CreelClient d = CreelClient.connect(daveConf); CreelClient e = CreelClient.connect(erinConf)) {
                d.create("/dave", NodeType.DIRECTORY).join();
                d.setAccess("/dave", "", "", 0700).join();
                write(d, "/dave/f", "dave's");
                assertEquals(new NodeAccess("dave", "creel", 0600), d.lookup("/dave/f").join().info().access());
                denied("erin", "/dave", () -> e.lookup("/dave/f"));
                assertEquals("dave's", read(d, "/dave/f"));
            }
            // Without the setting, a certificate alone proves nothing to a cluster with a secret.
            try (CreelClient plain = CreelClient.connect(daveConf.with(SecurityKeys.TLS_IDENTITY, "false"))) {
                assertEquals(ErrorCode.UNAUTHENTICATED, failure(() -> plain.lookup("/")).code());
            }
        }
    }

    @Test
    void withoutAClusterSecretNothingIsCheckedAndNodesShowNoOwner() {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20))) {
            try (CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
                c.create("/d", NodeType.DIRECTORY).join();
                assertNull(c.lookup("/d").join().info().access());
                CreelException e = failure(() -> c.setAccess("/d", "", "", 0700));
                assertEquals(ErrorCode.UNSUPPORTED, e.code());
                assertTrue(e.getMessage().contains("enforces no permissions"), e.getMessage());
            }
        }
    }

}
