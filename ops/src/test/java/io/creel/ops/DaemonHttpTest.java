package io.creel.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.BuildInfo;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeServer;
import io.creel.ops.http.Http;
import io.creel.storage.StorageKeys;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP side as bin/creel starts it for each kind of daemon. */
class DaemonHttpTest {
    @TempDir
    Path dir;

    @Test
    void withoutAPortNoDaemonServesHttp() {
        CreelConf conf = CreelConf.of(Map.of());
        assertEquals(Optional.empty(), DaemonHttp.namenode(conf, 0));
    }

    @Test
    void everyDaemonReportsTheBuildItRuns() {
        CreelConf conf = CreelConf.of(Map.of(OpsKeys.HTTP_PORT.name(), Integer.toString(freePort()),
                OpsKeys.HTTP_HOST.name(), "127.0.0.1", ConfKeys.NAMENODE_ADDRESS.name(), "creel://127.0.0.1:1234"));
        try (DaemonHttp http = DaemonHttp.namenode(conf, 0).orElseThrow()) {
            String metrics = Http.get(http.port(), "/metrics").body();
            assertTrue(metrics.contains("creel_build_info{commit=\"" + BuildInfo.current().commit() + "\",version=\""
                    + BuildInfo.current().version() + "\"} 1"), metrics);
        }
    }

    @Test
    void aNamenodeIsLiveButNotReadyUntilItServesThenReady() {
        CreelConf conf = CreelConf.of(Map.of(OpsKeys.HTTP_PORT.name(), Integer.toString(freePort()),
                OpsKeys.HTTP_HOST.name(), "127.0.0.1", ConfKeys.NAMENODE_ADDRESS.name(),
                "creel://127.0.0.1:1234,creel://127.0.0.1:1235"));
        try (DaemonHttp http = DaemonHttp.namenode(conf, 0).orElseThrow()) {
            assertEquals(200, Http.get(http.port(), "/health/live").statusCode());
            var starting = Http.get(http.port(), "/health/ready");
            assertEquals(503, starting.statusCode());
            assertEquals("namenode 127.0.0.1:1234 is starting: restoring its namespace or binding its RPC port\n",
                    starting.body());
            try (NamenodeServer nn = NamenodeServer.start(conf, "127.0.0.1", 0)) {
                http.namenodeServing(nn);
                assertEquals("ready\n", Http.get(http.port(), "/health/ready").body());
                assertThrows(IllegalStateException.class, () -> http.namenodeServing(nn));
            }
        }
    }

    @Test
    void aStorageServerIsNotReadyWhileANamenodeHasNotAcceptedItNamingThatNamenode() throws Exception {
        int nobody = freePort();
        CreelConf conf = CreelConf.of(Map.of(ConfKeys.NAMENODE_ADDRESS.name(), "creel://127.0.0.1:" + nobody,
                OpsKeys.HTTP_PORT.name(), Integer.toString(freePort()), StorageKeys.BIND_HOST.name(), "127.0.0.1",
                StorageKeys.ADVERTISE_HOST.name(), "127.0.0.1", LocalTierKeys.DISK_PATH.name(),
                Files.createDirectories(dir.resolve("disk")).toString(), LocalTierKeys.DISK_SIZE.name(), "16m"));
        try (StorageServerRuntime rt = StorageServerRuntime.start(conf, "disk");
             DaemonHttp http = DaemonHttp.storageServer(conf, rt).orElseThrow()) {
            var r = Http.get(http.port(), "/health/ready");
            assertEquals(503, r.statusCode());
            assertEquals("storage server " + rt.info().address() + " is not registered with namenode 127.0.0.1:"
                    + nobody + "\n", r.body());
            assertEquals(200, Http.get(http.port(), "/health/live").statusCode());
            assertEquals(404, Http.get(http.port(), "/").statusCode());
        }
    }

    @Test
    void aLocalClusterIsReadyOnceEveryServerIsRegistered() {
        try (MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(16 << 20).disk(16 << 20)
                .servers(1, 1).start()) {
            List<HostPort> addresses = cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS);
            try (DaemonHttp http = DaemonHttp.localCluster("127.0.0.1", 0)) {
                assertEquals("local cluster is starting\n", Http.get(http.port(), "/health").body());
                http.clusterServing(cluster.namenodes(), addresses, cluster.storageServers());
                var r = Http.get(http.port(), "/health");
                assertEquals(200, r.statusCode(), r.body());
                assertEquals("ready\n", r.body());
            }
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
