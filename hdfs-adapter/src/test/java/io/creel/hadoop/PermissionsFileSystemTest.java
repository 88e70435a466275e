package io.creel.hadoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.security.ClusterSecret;
import io.creel.common.security.Credential;
import io.creel.common.security.SecurityKeys;
import io.creel.common.security.TestSecrets;
import io.creel.minicluster.MiniCluster;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Hadoop file system on a cluster that enforces permissions: {@code FileStatus} shows the node's
 * owner, group and mode, {@code setPermission} and {@code setOwner} change them (the owner only an
 * administrator), and a refusal is an {@link AccessControlException} naming the identity.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PermissionsFileSystemTest {
    @TempDir
    Path tmp;

    private static org.apache.hadoop.fs.Path p(String s) {
        return new org.apache.hadoop.fs.Path(s);
    }

    @Test
    void fileStatusShowsOwnersAndSetPermissionAndSetOwnerAreEnforced() throws Exception {
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of the hadoop test");
        MiniCluster.Builder b = MiniCluster.builder().temporaryDirectories().dram(16L << 20)
                .set("creel.net.event.loops", "2").set(SecurityKeys.SECRET_FILE, secret.toString());
        try (MiniCluster cluster = b.start()) {
            Path aliceFile = tmp.resolve("alice.credential");
            Path bobFile = tmp.resolve("bob.credential");
            Credential alice = Credential.issue(ClusterSecret.read(secret), "alice");
            Credential bob = Credential.issue(ClusterSecret.read(secret), "bob");
            alice.write(aliceFile);
            bob.write(bobFile);
            try (CreelClient admin = CreelClient.connect(cluster.clientConf())) {
                admin.admin().putCredential(new CredentialRecord("alice", alice.idText(), List.of("eng"), 1)).join();
                admin.admin().putCredential(new CredentialRecord("bob", bob.idText(), List.of(), 1)).join();
            }
            URI uri = URI.create(cluster.address().toUri() + "/");
            Configuration adminConf = new Configuration();
            adminConf.set(CreelHadoopConf.NAMENODE_ADDRESS, cluster.address().toUri());
            adminConf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + "creel.net.event.loops", "2");
            adminConf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + SecurityKeys.SECRET_FILE.name(), secret.toString());
            Configuration aliceConf = new Configuration(adminConf);
            aliceConf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + SecurityKeys.SECRET_FILE.name(), "");
            aliceConf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + SecurityKeys.CREDENTIAL_FILE.name(), aliceFile.toString());
            Configuration bobConf = new Configuration(aliceConf);
            bobConf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + SecurityKeys.CREDENTIAL_FILE.name(), bobFile.toString());

            try (FileSystem fs = FileSystem.newInstance(uri, aliceConf)) {
                assertTrue(fs.mkdirs(p("/alice")));
                fs.setPermission(p("/alice"), new FsPermission((short) 0750));
                fs.setOwner(p("/alice"), null, "eng");
                try (FSDataOutputStream o = fs.create(p("/alice/f"))) {
                    o.write(42);
                }
                assertTrue(fs.mkdirs(p("/alice/staging"), new FsPermission((short) 0700)));
                assertEquals((short) 0700, fs.getFileStatus(p("/alice/staging")).getPermission().toShort(),
                        "mkdirs applies its permission, as HDFS does");
                try (FSDataOutputStream o = fs.create(p("/alice/staging/x"), new FsPermission((short) 0666), true,
                        4096, (short) 1, 1 << 20, null)) {
                    o.write(1);
                }
                assertEquals((short) 0644, fs.getFileStatus(p("/alice/staging/x")).getPermission().toShort(),
                        "create's permission less the client's umask 022");
                assertTrue(fs.delete(p("/alice/staging"), true));
                FileStatus dir = fs.getFileStatus(p("/alice"));
                assertEquals("alice", dir.getOwner());
                assertEquals("eng", dir.getGroup());
                assertEquals((short) 0750, dir.getPermission().toShort());
                FileStatus[] listed = fs.listStatus(p("/alice"));
                assertEquals(1, listed.length);
                assertEquals("alice", listed[0].getOwner());
                assertEquals((short) 0644, listed[0].getPermission().toShort(), "create(Path): 0666 less the umask, as in HDFS");
                AccessControlException e = assertThrows(AccessControlException.class,
                        () -> fs.setOwner(p("/alice/f"), "bob", null));
                assertTrue(e.getMessage().contains("identity alice"), e.getMessage());
            }
            try (FileSystem fs = FileSystem.newInstance(uri, bobConf)) {
                AccessControlException e = assertThrows(AccessControlException.class, () -> fs.open(p("/alice/f"))
                        .read());
                assertTrue(e.getMessage().contains("identity bob") && e.getMessage().contains("/alice"), e.getMessage());
                assertThrows(AccessControlException.class, () -> fs.create(p("/alice/g")).close());
                assertThrows(AccessControlException.class, () -> fs.setPermission(p("/alice"), FsPermission.getDefault()));
            }
            try (FileSystem fs = FileSystem.newInstance(uri, adminConf)) {
                fs.setOwner(p("/alice/f"), "bob", null);
                assertEquals("bob", fs.getFileStatus(p("/alice/f")).getOwner());
                assertEquals("creel", fs.getFileStatus(p("/")).getOwner(), "the root was never stamped");
            }
        }
    }
}
