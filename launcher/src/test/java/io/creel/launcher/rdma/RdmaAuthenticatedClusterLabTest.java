package io.creel.launcher.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.security.SecurityKeys;
import io.creel.storage.rdma.lab.LabEnvironment;
import io.creel.storage.rdma.lab.RdmaLab;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster with a cluster secret over real RDMA, in the lab guest: the namenode serves rdma://
 * with the handshake, the storage server registers over rdma:// proving the secret, a client with
 * the secret writes and reads over rdma:// and the rdma transport only, and clients without the
 * secret or with another one are refused over rdma:// with one UNAUTHENTICATED error each, the
 * namenode logging who it refused.
 */
@RdmaLab
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RdmaAuthenticatedClusterLabTest {
    private static final long WAIT = 240;

    private Path secrets;
    private RdmaLabCluster cluster;

    @BeforeAll
    void startTheCluster() throws Exception {
        InetAddress address = LabEnvironment.requireRdma();
        String out = System.getenv("CREEL_LAB_OUT");
        Path dir = out != null ? Path.of(out, "secure-cluster") : Files.createTempDirectory("creel-rdma-auth-lab");
        // A private file where the guest can make one (the shared output directory may not keep modes).
        secrets = Files.createDirectories(Path.of("/dev/shm/creel-rdma-lab-secrets"));
        Path secret = secret("cluster.secret", "the lab cluster's secret, 32 bytes");
        cluster = new RdmaLabCluster(address, dir, Map.of(SecurityKeys.SECRET_FILE.name(), secret.toString()));
        // It registers over rdma://: the storage server authenticated to the namenode.
        cluster.datanode("dram-secure", "dram", "64m");
    }

    @AfterAll
    void stopTheCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Path secret(String name, String text) throws IOException {
        Path f = secrets.resolve(name);
        Files.writeString(f, text + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT, TimeUnit.SECONDS);
    }

    private static CreelException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CreelException, "a CreelException: " + e.getCause());
        return (CreelException) e.getCause();
    }

    @Test
    @Order(1)
    void aClientWithTheSecretWritesAndReadsOverRdmaOnly() throws Exception {
        assertTrue(cluster.namenode().awaitLine("(clients authenticate with the cluster secret)", 5)
                .contains("serving rdma://"));
        byte[] data = new byte[3 << 20];
        new Random(17).nextBytes(data);
        try (CreelClient c = CreelClient.connect(cluster.rdmaClientConf())) {
            CreelNode n = await(c.create("/secured", NodeType.FILE));
            DirectWriter w = n.writer();
            await(w.write(ByteBuffer.wrap(data)));
            await(w.close());
        }
        try (CreelClient c = CreelClient.connect(cluster.rdmaClientConf())) {
            CreelNode n = await(c.lookup("/secured"));
            ByteBuffer got = ByteBuffer.allocate(data.length);
            DirectReader r = n.reader();
            while (got.hasRemaining()) {
                assertTrue(await(r.read(got)) > 0);
            }
            assertArrayEquals(data, got.array(), "came back as written, over rdma:// and RDMA");
        }
    }

    @Test
    @Order(2)
    void aClientWithoutTheSecretIsRefusedOverRdmaAndTheNamenodeLogsIt() throws Exception {
        CreelConf noSecret = cluster.rdmaClientConf().with(SecurityKeys.SECRET_FILE, "");
        try (CreelClient c = CreelClient.connect(noSecret)) {
            CreelException e = failure(c.lookup("/secured"));
            assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("namenode at " + cluster.rdmaAddress() + " requires authentication: set "
                    + SecurityKeys.SECRET_FILE.name()), e.getMessage());
        }
        // The reason, not the first refusal: under an emulated NIC's load a storage server's first
        // connection may have been refused for a slow handshake before this client came.
        assertTrue(cluster.namenode().awaitLine("it sent a request without authenticating", 60)
                .contains("refused rdma:// connection from"));
    }

    @Test
    @Order(3)
    void aClientWithAnotherSecretIsRefusedWithTheNamenodesReason() throws Exception {
        Path other = secret("other.secret", "some other cluster's secret value");
        try (CreelClient c = CreelClient.connect(cluster.rdmaClientConf().with(SecurityKeys.SECRET_FILE,
                other.toString()))) {
            CreelException e = failure(c.lookup("/secured"));
            assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("cannot authenticate to " + cluster.rdmaAddress()
                    + ": namenode refused the connection: its proof of the cluster secret is wrong"), e.getMessage());
        }
        assertTrue(cluster.namenode().awaitLine("its proof of the cluster secret is wrong", 60)
                .contains("refused rdma:// connection from"));
    }
}
