package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcClient;
import io.creel.common.security.RpcSecurity;
import io.creel.common.security.SecurityKeys;
import io.creel.storage.StorageKeys;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import io.creel.storage.transport.TransportKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster with a cluster secret ({@code creel.security.secret.file}): clients that know it use the
 * whole API over every transport; a client with no secret or another one is refused on every port
 * (the namenode's and each storage server's) with UNAUTHENTICATED, and a storage server with another
 * secret never gets registered.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AuthenticatedClusterTest {
    @TempDir
    Path dir;

    private Path secret(String name, String text) throws IOException {
        return io.creel.common.security.TestSecrets.write(dir.resolve(name), text);
    }

    private static CreelException failure(CompletionException e) {
        assertTrue(e.getCause() instanceof CreelException, "a CreelException: " + e.getCause());
        return (CreelException) e.getCause();
    }

    @Test
    void clientsWithTheSecretUseTheApiAndOthersAreRefusedOnEveryPort() throws Exception {
        Path right = secret("cluster.secret", "the right cluster secret, 32 bytes");
        Path wrong = secret("other.secret", "some other cluster's secret value");
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(16L << 20)
                .set(SecurityKeys.SECRET_FILE, right.toString()))) {
            CreelConf conf = running.cluster.clientConf();
            byte[] data = new byte[12 << 20]; // more than the DRAM tier: spills to disk, so both servers serve it
            new Random(7).nextBytes(data);
            try (CreelClient c = CreelClient.connect(conf)) {
                c.create("/dir", NodeType.DIRECTORY).join();
                CreelNode f = c.create("/dir/big", NodeType.FILE).join();
                f.writer().write(ByteBuffer.wrap(data)).join();
                f.writer().close().join();
                c.create("/dir/t", NodeType.TABLE).join();
                c.putValue("/dir/t", "k", ByteBuffer.wrap("v".getBytes(StandardCharsets.UTF_8))).join();
                assertEquals(2, c.list("/dir").join().size());
            }
            // Over TCP only: the storage servers' own ports carry every byte.
            for (CreelConf reader : List.of(conf, conf.with(TransportKeys.TRANSPORTS, "tcp"))) {
                try (CreelClient c = CreelClient.connect(reader)) {
                    ByteBuffer got = ByteBuffer.allocateDirect(data.length);
                    c.lookup("/dir/big").join().reader().read(got).join();
                    byte[] back = new byte[data.length];
                    got.flip().get(back);
                    assertArrayEquals(data, back, "read with " + reader.get(TransportKeys.TRANSPORTS));
                    assertEquals("v", StandardCharsets.UTF_8.decode(c.getValue("/dir/t", "k").join()).toString());
                }
            }

            // The API without the secret, or with another one: one clear error.
            CreelConf noSecret = conf.with(SecurityKeys.SECRET_FILE, "");
            try (CreelClient c = CreelClient.connect(noSecret)) {
                CreelException e = failure(assertThrows(CompletionException.class, () -> c.lookup("/dir/big").join()));
                assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
                assertTrue(e.getMessage().contains("requires authentication"), e.getMessage());
            }
            try (CreelClient c = CreelClient.connect(conf.with(SecurityKeys.SECRET_FILE, wrong.toString()))) {
                CreelException e = failure(assertThrows(CompletionException.class, () -> c.lookup("/dir/big").join()));
                assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
                assertTrue(e.getMessage().contains("proof of the cluster secret is wrong"), e.getMessage());
            }

            // Every port: the namenode's and each storage server's.
            List<Integer> ports = new ArrayList<>();
            ports.add(running.cluster.namenode().port());
            for (StorageServerRuntime s : running.cluster.storageServers()) {
                ports.add(s.info().port());
            }
            assertEquals(3, ports.size());
            RpcSecurity wrongSecurity = RpcSecurity.of(conf.with(SecurityKeys.SECRET_FILE, wrong.toString()));
            try (EventLoops loops = EventLoops.create(conf, "auth-probe")) {
                for (int port : ports) {
                    HostPort at = new HostPort("127.0.0.1", port);
                    try (RpcClient plain = RpcClient.connect(at, loops, 1 << 20, Duration.ofSeconds(5),
                            Duration.ofSeconds(10)).join()) {
                        CreelException e = failure(assertThrows(CompletionException.class,
                                () -> plain.call(Opcode.LOOKUP, new LookupRequest("/dir/big", false), b -> b).join()));
                        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), "port " + port + ": " + e.getMessage());
                    }
                    CreelException e = failure(assertThrows(CompletionException.class,
                            () -> RpcClient.connect(at, loops, 1 << 20, Duration.ofSeconds(5), Duration.ofSeconds(10),
                                    wrongSecurity).join()));
                    assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), "port " + port + ": " + e.getMessage());
                }
            }
        }
    }

    @Test
    void aStorageServerWithAnotherSecretIsNeverRegistered() throws Exception {
        Path right = secret("cluster.secret", "the right cluster secret, 32 bytes");
        Path wrong = secret("other.secret", "some other cluster's secret value");
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20)
                .set(SecurityKeys.SECRET_FILE, right.toString()))) {
            Map<String, String> s = new LinkedHashMap<>(running.cluster.clientConf().explicitSettings());
            s.put(SecurityKeys.SECRET_FILE.name(), wrong.toString());
            s.put(StorageKeys.BIND_HOST.name(), "127.0.0.1");
            s.put(StorageKeys.ADVERTISE_HOST.name(), "127.0.0.1");
            s.put(StorageKeys.PORT.name(), "0");
            s.put(LocalTierKeys.DRAM_SIZE.name(), Long.toString(4L << 20));
            s.put(LocalTierKeys.DRAM_PATH.name(), Files.createDirectories(dir.resolve("intruder")).toString());
            try (StorageServerRuntime intruder = StorageServerRuntime.start(CreelConf.of(s), "dram")) {
                CreelException e = assertThrows(CreelException.class, () -> intruder.awaitRegistered(2000));
                assertEquals(ErrorCode.TIMEOUT, e.code());
                assertFalse(intruder.isRegistered());
            }
            try (CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
                assertEquals(2, c.status().join().get(0).servers().size(), "only the cluster's own servers");
            }
        }
    }
}
