package io.creel.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import io.creel.common.security.TestSecrets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.security.TestCertificates;
import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Hadoop file system against a cluster with TLS and the cluster secret, both passed through as
 * {@code fs.creel.conf.*}: it writes, lists and reads; without the secret it fails saying why.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredFileSystemTest {
    @TempDir
    Path tmp;

    @Test
    void theFileSystemWorksWithTlsAndTheSecretAndIsRefusedWithoutTheSecret() throws Exception {
        TestCertificates certs = TestCertificates.make(tmp, "hadoop");
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of the hadoop test");
        Map<String, String> security = TestSecrets.tlsAndSecret(certs, secret);
        MiniCluster.Builder b = MiniCluster.builder().temporaryDirectories().dram(16L << 20).disk(16L << 20)
                .set("creel.net.event.loops", "2");
        security.forEach(b::set);
        try (MiniCluster cluster = b.start()) {
            URI uri = URI.create(cluster.address().toUri() + "/");
            Configuration conf = new Configuration();
            conf.set(CreelHadoopConf.NAMENODE_ADDRESS, cluster.address().toUri());
            conf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + "creel.net.event.loops", "2");
            security.forEach((k, v) -> conf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + k, v));
            byte[] data = new byte[2 << 20];
            new Random(13).nextBytes(data);
            try (FileSystem fs = FileSystem.newInstance(uri, conf)) {
                try (FSDataOutputStream o = fs.create(new org.apache.hadoop.fs.Path("/secured/file"))) {
                    o.write(data);
                }
                assertEquals(1, fs.listStatus(new org.apache.hadoop.fs.Path("/secured")).length);
                byte[] back = new byte[data.length];
                try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path("/secured/file"))) {
                    in.readFully(back);
                }
                assertArrayEquals(data, back);
            }
            Configuration noSecret = new Configuration(conf);
            noSecret.set(CreelHadoopConf.PASS_THROUGH_PREFIX + "creel.security.secret.file", "");
            try (FileSystem fs = FileSystem.newInstance(uri, noSecret)) {
                IOException e = assertThrows(IOException.class,
                        () -> fs.getFileStatus(new org.apache.hadoop.fs.Path("/secured/file")));
                assertTrue(String.valueOf(e.getMessage()).contains("requires authentication"), e.toString());
            }
        }
    }
}
