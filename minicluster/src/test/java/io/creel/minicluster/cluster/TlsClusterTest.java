package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import io.creel.common.security.TestSecrets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcClient;
import io.creel.common.security.SecurityKeys;
import io.creel.common.security.TestCertificates;
import io.creel.storage.runtime.StorageServerRuntime;
import io.creel.storage.transport.TransportKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster with TLS (client certificates required) and the cluster secret: the API works over
 * every transport, the storage servers register and serve blocks over TLS, and a plain client is
 * told on every port that it needs TLS.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TlsClusterTest {
    @TempDir
    Path dir;

    @Test
    void theApiWorksOverTlsAndPlainClientsAreRefusedOnEveryPort() throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "cluster");
        Path secret = TestSecrets.write(dir.resolve("cluster.secret"), "the cluster secret of the tls test");
        try (Clusters.Running running = Clusters.start(b -> {
            b.dram(8L << 20).disk(16L << 20).set(SecurityKeys.TLS_CLIENT_AUTH, "true");
            TestSecrets.tlsAndSecret(certs, secret).forEach(b::set);
        })) {
            CreelConf conf = running.cluster.clientConf();
            byte[] data = new byte[12 << 20]; // spills from DRAM to disk: both servers serve it
            new Random(11).nextBytes(data);
            try (CreelClient c = CreelClient.connect(conf)) {
                CreelNode f = c.create("/big", NodeType.FILE).join();
                f.writer().write(ByteBuffer.wrap(data)).join();
                f.writer().close().join();
                c.create("/t", NodeType.TABLE).join();
                c.putValue("/t", "k", ByteBuffer.wrap(new byte[] {42})).join();
            }
            for (CreelConf reader : List.of(conf, conf.with(TransportKeys.TRANSPORTS, "tcp"))) {
                try (CreelClient c = CreelClient.connect(reader)) {
                    for (ByteBuffer got : new ByteBuffer[] {ByteBuffer.allocateDirect(data.length),
                            ByteBuffer.allocate(data.length)}) {
                        c.lookup("/big").join().reader().read(got).join();
                        byte[] back = new byte[data.length];
                        got.flip().get(back);
                        assertArrayEquals(data, back, "read with transports " + reader.get(TransportKeys.TRANSPORTS));
                    }
                    assertEquals(42, c.getValue("/t", "k").join().get(0));
                }
            }

            List<Integer> ports = new ArrayList<>();
            ports.add(running.cluster.namenode().port());
            for (StorageServerRuntime s : running.cluster.storageServers()) {
                ports.add(s.info().port());
            }
            try (EventLoops loops = EventLoops.create(conf, "tls-probe")) {
                for (int port : ports) {
                    try (RpcClient plain = RpcClient.connect(new HostPort("127.0.0.1", port), loops, 1 << 20,
                            Duration.ofSeconds(5), Duration.ofSeconds(10)).join()) {
                        CompletionException e = assertThrows(CompletionException.class,
                                () -> plain.call(Opcode.LOOKUP, new LookupRequest("/big", false), b -> b).join());
                        CreelException ce = (CreelException) e.getCause();
                        assertEquals(ErrorCode.UNAUTHENTICATED, ce.code(), "port " + port + ": " + ce.getMessage());
                        assertTrue(ce.getMessage().contains("requires TLS"), ce.getMessage());
                    }
                }
            }
            // The API without TLS: one clear error.
            try (CreelClient c = CreelClient.connect(conf.with(SecurityKeys.TLS_ENABLED, "false"))) {
                CompletionException e = assertThrows(CompletionException.class, () -> c.lookup("/big").join());
                assertTrue(e.getCause().getMessage().contains("requires TLS"), e.getCause().getMessage());
            }
        }
    }
}
