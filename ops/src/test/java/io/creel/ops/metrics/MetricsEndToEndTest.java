package io.creel.ops.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeKeys;
import io.creel.storage.StorageKeys;
import io.creel.ops.DaemonHttp;
import io.creel.ops.http.Http;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * /metrics of a running cluster after real traffic: every figure the README's table names is
 * there, and the ones this test caused have the values it caused.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MetricsEndToEndTest {
    @TempDir
    Path logDir;

    @Test
    void trafficShowsUpAsRequestsLatenciesErrorsBytesAndSpace() throws Exception {
        try (DaemonHttp http = DaemonHttp.localCluster("127.0.0.1", 0);
             MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(16 << 20).disk(32 << 20)
                     .servers(1, 1).start()) {
            List<HostPort> addresses = cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS);
            http.clusterServing(cluster.namenodes(), addresses, cluster.storageServers());
            byte[] data = new byte[300 * 1024];
            Arrays.fill(data, (byte) 7);
            try (CreelClient c = CreelClient.connect(cluster.clientConf())) {
                c.create("/jobs", NodeType.DIRECTORY).join();
                c.create("/cache", NodeType.TABLE).join();
                try (OutputStream out = c.create("/jobs/part-0", NodeType.FILE).join().outputStream()) {
                    out.write(data);
                }
                try (InputStream in = c.lookup("/jobs/part-0").join().inputStream()) {
                    assertEquals(data.length, in.readAllBytes().length);
                }
                CompletionException missing = assertThrows(CompletionException.class,
                        () -> c.lookup("/jobs/no-such-file").join());
                assertEquals(ErrorCode.NOT_FOUND, ((CreelException) missing.getCause()).code());
                CompletionException failedMove = assertThrows(CompletionException.class,
                        () -> c.move("/jobs/no-such-file", "/jobs/other").join());
                assertEquals(ErrorCode.NOT_FOUND, ((CreelException) failedMove.getCause()).code());
                String m = Http.get(http.port(), "/metrics").body();
                String nn = "namenode=\"" + addresses.get(0) + "\"";

                assertTrue(value(m, "creel_rpc_requests_total", "op=\"CREATE\",service=\"namenode\"") >= 3, m);
                // The missing lookup was an answer (a request, not an error); the failed move an error.
                assertTrue(value(m, "creel_rpc_errors_total", "code=\"NOT_FOUND\",op=\"MOVE\",service=\"namenode\"")
                        >= 1, m);
                assertFalse(m.contains("creel_rpc_errors_total{code=\"NOT_FOUND\",op=\"LOOKUP\""), m);
                assertTrue(value(m, "creel_rpc_request_seconds_count", "op=\"LOOKUP\",service=\"namenode\"") >= 2, m);
                assertTrue(m.contains("creel_rpc_request_seconds_bucket{op=\"LOOKUP\",service=\"namenode\",le=\"0.001\"}"),
                        m);
                assertTrue(value(m, "creel_rpc_connections", "service=\"namenode\"") >= 1, m);
                double written = m.lines().filter(l -> l.startsWith("creel_transfer_bytes_total{direction=\"write\""))
                        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
                assertTrue(written >= data.length, m);
                double read = m.lines().filter(l -> l.startsWith("creel_transfer_bytes_total{direction=\"read\""))
                        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
                assertTrue(read >= data.length, m);

                assertEquals(1, value(m, "creel_namenode_nodes", nn + ",type=\"File\""), m);
                assertEquals(2, value(m, "creel_namenode_nodes", nn + ",type=\"Directory\""), m); // the root, /jobs
                assertEquals(1, value(m, "creel_namenode_nodes", nn + ",type=\"Table\""), m);
                assertEquals(2, value(m, "creel_namenode_servers", nn + ",state=\"live\""), m);
                assertEquals(0, value(m, "creel_namenode_servers", nn + ",state=\"dead\""), m);
                assertEquals(16 << 20, value(m, "creel_class_capacity_bytes", "class=\"dram\"," + nn), m);
                assertEquals(32 << 20, value(m, "creel_class_capacity_bytes", "class=\"disk\"," + nn), m);
                double used = value(m, "creel_class_used_bytes", "class=\"dram\"," + nn);
                assertTrue(used >= data.length, m);
                assertEquals(16 << 20, used + value(m, "creel_class_free_bytes", "class=\"dram\"," + nn)
                        + value(m, "creel_class_pending_bytes", "class=\"dram\"," + nn), m);
                assertTrue(value(m, "creel_class_blocks", "class=\"dram\"," + nn + ",state=\"used\"") >= 1, m);
                assertTrue(m.contains("# TYPE creel_server_used_bytes gauge"), m);
                assertTrue(m.contains("creel_server_state{class=\"dram\""), m);
                assertTrue(m.contains("# TYPE creel_storage_regions gauge"), m);
                assertTrue(m.contains("# TYPE creel_storage_registered gauge"), m);
                assertTrue(m.contains("# TYPE jvm_memory_used_bytes gauge"), m);
                assertTrue(m.contains("jvm_buffer_pool_used_bytes{pool=\"direct\"}"), m);
                // Without persistence there is no log to report on.
                assertTrue(!m.contains("creel_namenode_log_fsyncs"), m);
            }
        }
    }

    @Test
    void withPersistenceLogFsyncsAndCheckpointsAreReported() throws Exception {
        try (DaemonHttp http = DaemonHttp.localCluster("127.0.0.1", 0);
             MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(16 << 20).disk(0).servers(1, 0)
                     .set(NamenodeKeys.LOG_DIR, logDir.toString()).start()) {
            http.clusterServing(cluster.namenodes(), cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS),
                    cluster.storageServers());
            try (CreelClient c = CreelClient.connect(cluster.clientConf())) {
                c.create("/a", NodeType.DIRECTORY).join();
                c.create("/a/b", NodeType.DIRECTORY).join();
            }
            assertTrue(cluster.namenode().persistence().orElseThrow().checkpoint(), "a checkpoint was written");
            String m = Http.get(http.port(), "/metrics").body();
            String nn = "namenode=\"" + cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS).get(0) + "\"";
            assertTrue(value(m, "creel_namenode_log_fsyncs_total", nn) >= 1, m);
            assertTrue(value(m, "creel_namenode_log_fsync_seconds_total", nn) > 0, m);
            assertEquals(1, value(m, "creel_namenode_checkpoints_total", nn), m);
            assertTrue(value(m, "creel_namenode_last_checkpoint_seconds", nn) > 0, m);
        }
    }

    @Test
    void withTwoNamenodesEachReportsItsOwnViewSoCapacityIsCountedOnceAndUseAddsUp() throws Exception {
        try (DaemonHttp http = DaemonHttp.localCluster("127.0.0.1", 0);
             MiniCluster cluster = MiniCluster.builder().temporaryDirectories().namenodes(2).dram(16 << 20).disk(0)
                     .servers(1, 0).set(StorageKeys.REGION_SIZE, "4m").start()) {
            List<HostPort> addresses = cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS);
            http.clusterServing(cluster.namenodes(), addresses, cluster.storageServers());
            try (CreelClient c = CreelClient.connect(cluster.clientConf())) {
                for (int i = 0; i < 8; i++) { // paths hash to both partitions
                    try (OutputStream out = c.create("/f" + i, NodeType.FILE).join().outputStream()) {
                        out.write(new byte[64 * 1024]);
                    }
                }
            }
            String m = Http.get(http.port(), "/metrics").body();
            double used = 0;
            for (HostPort a : addresses) {
                String nn = "namenode=\"" + a + "\"";
                // Every namenode sees the one server's whole capacity: the dashboard takes the max.
                assertEquals(16 << 20, value(m, "creel_class_capacity_bytes", "class=\"dram\"," + nn), m);
                used += value(m, "creel_class_used_bytes", "class=\"dram\"," + nn);
            }
            // Each namenode counts only its own partition's blocks (its files and its directory
            // records): the sum is the cluster's use, as creel report adds it up.
            long blockSize = cluster.clientConf().get(ConfKeys.BLOCK_SIZE);
            long reported;
            try (CreelClient c = CreelClient.connect(cluster.clientConf())) {
                reported = c.status().join().stream().flatMap(r -> r.servers().stream())
                        .mapToLong(s -> s.usedBlocks() * blockSize).sum();
            }
            assertTrue(used >= 8 * blockSize, m);
            assertEquals(reported, used, m);
        }
    }

    @Test
    void everyNameTheReadmeTableAndTheGrafanaDashboardUseIsExposedAndEveryExposedFamilyIsDocumented()
            throws Exception {
        String m;
        try (DaemonHttp http = DaemonHttp.localCluster("127.0.0.1", 0);
             MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(16 << 20).disk(16 << 20)
                     .servers(1, 1).set(NamenodeKeys.LOG_DIR, logDir.toString()).start()) {
            http.clusterServing(cluster.namenodes(), cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS),
                    cluster.storageServers());
            try (CreelClient c = CreelClient.connect(cluster.clientConf())) {
                try (OutputStream out = c.create("/f", NodeType.FILE).join().outputStream()) {
                    out.write(new byte[64 * 1024]);
                }
                assertThrows(CompletionException.class, () -> c.lookup("/missing").join());
                assertThrows(CompletionException.class, () -> c.move("/missing", "/elsewhere").join());
            }
            assertTrue(cluster.namenode().persistence().orElseThrow().checkpoint());
            m = Http.get(http.port(), "/metrics").body();
        }
        java.util.Set<String> exposed = new java.util.TreeSet<>();
        java.util.Set<String> families = new java.util.TreeSet<>();
        for (String line : m.lines().toList()) {
            if (line.startsWith("# TYPE ")) {
                String family = line.split(" ")[2];
                families.add(family);
                exposed.add(family);
            } else if (!line.startsWith("#") && !line.isBlank()) {
                exposed.add(line.split("[{ ]")[0]);
            }
        }
        String readme = java.nio.file.Files.readString(Path.of("README.md"));
        String dashboard = java.nio.file.Files.readString(Path.of("..", "docker", "grafana", "creel-dashboard.json"));
        java.util.Set<String> used = new java.util.TreeSet<>(names(dashboard));
        String table = readme.substring(readme.indexOf("| name | type |"), readme.indexOf("Spill into lower classes"));
        java.util.Set<String> documented = names(table);
        used.addAll(documented);
        List<String> missing = used.stream().filter(n -> !exposed.contains(n)).toList();
        assertEquals(List.of(), missing, "names the README or the dashboard use but /metrics does not have:\n" + m);
        // A counter family is documented with its _total series.
        List<String> undocumented = families.stream().filter(f -> f.startsWith("creel_"))
                .filter(f -> !documented.contains(f) && !documented.contains(f + "_total")).toList();
        assertEquals(List.of(), undocumented, "metric families missing from ops/README.md's table");
    }

    private static java.util.Set<String> names(String text) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        Matcher mt = Pattern.compile("creel_[a-z_]+[a-z]").matcher(text);
        while (mt.find()) {
            out.add(mt.group());
        }
        return out;
    }

    /** The value of one series; fails naming it when it is absent. */
    private static double value(String exposition, String name, String labels) {
        String series = labels == null ? name : name + "{" + labels + "}";
        Matcher mt = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        if (!mt.find()) {
            throw new AssertionError(series + " is not in /metrics:\n" + exposition);
        }
        return Double.parseDouble(mt.group(1));
    }
}
