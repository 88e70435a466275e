package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectoryEntry;
import io.creel.common.namespace.NodeType;
import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Persistence end to end: a cluster with the namenode log and persistent storage servers is
 * stopped and started again on the same directories (or only its namenode is restarted), and
 * every file, value and listing reads back byte-identical.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PersistenceTest {
    private static final long MIB = 1 << 20;
    private Path dramDir;
    private Path diskDir;
    private Path logDir;

    @BeforeEach
    void dirs() throws IOException {
        Path shm = Path.of("/dev/shm");
        dramDir = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "creel-persist-") : Files.createTempDirectory("creel-persist-dram-");
        diskDir = Files.createTempDirectory("creel-persist-disk-");
        logDir = Files.createTempDirectory("creel-persist-log-");
    }

    @AfterEach
    void clean() {
        Stream.of(dramDir, diskDir, logDir).forEach(Clusters::delete);
    }

    private MiniCluster start(int port, long... sizeClasses) {
        return MiniCluster.builder().port(port).dramDir(dramDir).diskDir(diskDir).dram(8 * MIB).disk(64 * MIB)
                .servers(1, 2).sizeClasses(sizeClasses)
                .set("creel.block.size", "1m")
                .set("creel.net.event.loops", "2")
                .set("creel.storage.persistent", "true")
                .set("creel.storage.heartbeat.interval", "100ms")
                .set("creel.namenode.log.dir", logDir.toString())
                .start();
    }

    /** Files across both tiers, a Table with values, a Bag of parts, nested directories. */
    private static void writeEverything(CreelClient client) throws IOException {
        client.create("/data", NodeType.DIRECTORY).join();
        // 20 MiB: more than the 8 MiB DRAM server, so it spills onto disk.
        write(client, "/data/spanning", 1, 20 * MIB + 12345);
        write(client, "/data/small", 2, 100);
        client.create("/data/empty", NodeType.FILE).thenCompose(n -> n.writer().close()).join();
        client.create("/table", NodeType.TABLE).join();
        for (int i = 0; i < 30; i++) {
            client.putValue("/table", "key-" + i, ByteBuffer.wrap(value(i, 0))).join();
        }
        client.putValue("/table", "key-7", ByteBuffer.wrap(value(7, 1))).join(); // replaced
        client.create("/hidden", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
        client.putValue("/hidden", "h", ByteBuffer.wrap(value(99, 0))).join();
        client.create("/bag", NodeType.BAG).join();
        for (int i = 0; i < 12; i++) {
            write(client, "/bag/part-" + i, 100 + i, 3000L * i + 1);
        }
        client.delete("/bag/part-5", false).join();
        client.move("/data/small", "/data/renamed").join();
    }

    private static void verifyEverything(CreelClient client) throws IOException {
        verify(client, "/data/spanning", 1, 20 * MIB + 12345);
        verify(client, "/data/renamed", 2, 100);
        assertEquals(0, client.lookup("/data/empty").join().length());
        // ("after" is what a test may add once the cluster is back.)
        assertEquals(List.of("empty", "renamed", "spanning"),
                names(client, "/data").stream().filter(n -> !n.equals("after")).toList());
        for (int i = 0; i < 30; i++) {
            assertArrayEquals(value(i, i == 7 ? 1 : 0), bytes(client.getValue("/table", "key-" + i).join()),
                    "/table key-" + i);
        }
        assertEquals(30, names(client, "/table").size());
        assertArrayEquals(value(99, 0), bytes(client.getValue("/hidden", "h").join()));
        List<String> parts = names(client, "/bag");
        assertEquals(11, parts.size(), parts.toString());
        for (int i = 0; i < 12; i++) {
            if (i != 5) {
                verify(client, "/bag/part-" + i, 100 + i, 3000L * i + 1);
            }
        }
        assertEquals(List.of("bag", "data", "hidden", "table"), names(client, "/"));
    }

    @Test
    void aWholeClusterRestartKeepsEveryFileValueAndListing() throws IOException {
        int port;
        try (MiniCluster cluster = start(0); CreelClient client = CreelClient.connect(cluster.clientConf())) {
            port = cluster.address().port();
            writeEverything(client);
            verifyEverything(client);
        }
        assertTrue(Files.exists(dramDir.resolve("dram-0").resolve("dram.region")), "the DRAM region file is kept");
        try (MiniCluster cluster = start(port); CreelClient client = CreelClient.connect(cluster.clientConf())) {
            verifyEverything(client);
            // The restored cluster keeps working: new data does not overwrite the old.
            write(client, "/data/after", 3, 5 * MIB);
            verify(client, "/data/after", 3, 5 * MIB);
            verifyEverything(client);
            client.delete("/data/spanning", false).join();
        }
        try (MiniCluster cluster = start(port); CreelClient client = CreelClient.connect(cluster.clientConf())) {
            verify(client, "/data/after", 3, 5 * MIB);
            assertEquals(List.of("after", "empty", "renamed"), names(client, "/data"));
        }
    }

    @Test
    void aNamenodeRestartWhileStorageServersRunRestoresTheNamespaceAndTheServersRejoin() throws IOException {
        try (MiniCluster cluster = start(0)) {
            try (CreelClient client = CreelClient.connect(cluster.clientConf())) {
                writeEverything(client);
            }
            cluster.restartNamenode();
            Clusters.awaitServersLive(cluster, 3);
            try (CreelClient client = CreelClient.connect(cluster.clientConf())) {
                verifyEverything(client);
                write(client, "/data/after", 4, 3 * MIB);
                verify(client, "/data/after", 4, 3 * MIB);
                verifyEverything(client);
            }
        }
    }

    /**
     * Nodes whose first block is a size class's keep their layout across a namenode restart and a
     * whole-cluster restart: it is their block 0's size, which the log keeps with the block's server.
     */
    @Test
    void smallFirstBlocksKeepTheirLayoutAcrossRestarts() throws IOException {
        long kib = 1024;
        int port;
        try (MiniCluster cluster = start(0, 16 * kib, 64 * kib);
             CreelClient client = CreelClient.connect(cluster.clientConf())) {
            port = cluster.address().port();
            client.create("/small", NodeType.DIRECTORY).join();
            write(client, "/small/fits", 11, 60 * kib);
            write(client, "/small/grown", 12, 2 * MIB + 70 * kib); // 64 KiB, then whole blocks
            client.create("/kv", NodeType.TABLE).join();
            client.putValue("/kv", "v", ByteBuffer.wrap(TestData.bytes(13, 0, 15 * (int) kib))).join();
            assertEquals(64 * kib, firstBlockSize(client, "/small/grown"));
            assertEquals(16 * kib, firstBlockSize(client, "/kv/v"));
            cluster.restartNamenode();
            Clusters.awaitServersLive(cluster, 5);
            try (CreelClient again = CreelClient.connect(cluster.clientConf())) {
                verify(again, "/small/grown", 12, 2 * MIB + 70 * kib);
                assertEquals(64 * kib, firstBlockSize(again, "/small/grown"));
            }
        }
        try (MiniCluster cluster = start(port, 16 * kib, 64 * kib);
             CreelClient client = CreelClient.connect(cluster.clientConf())) {
            verify(client, "/small/fits", 11, 60 * kib);
            verify(client, "/small/grown", 12, 2 * MIB + 70 * kib);
            assertEquals(64 * kib, firstBlockSize(client, "/small/grown"));
            ByteBuffer v = client.getValue("/kv", "v").join();
            TestData.verify(v, 13, 0, "/kv/v");
            assertEquals(15 * kib, v.remaining());
            // Appending after the restart continues in the node's layout.
            try (OutputStream out = client.openForAppend("/small/fits").join().outputStream()) {
                out.write(TestData.bytes(11, 60 * kib, 100_000));
            }
            verify(client, "/small/fits", 11, 60 * kib + 100_000);
        }
    }

    private static long firstBlockSize(CreelClient client, String path) {
        CreelNode n = client.lookup(path).join();
        return client.blockLocations(n, 0, 1).join().get(0).server().blockSize();
    }

    private static void write(CreelClient client, String path, long seed, long size) throws IOException {
        CreelNode file = client.create(path, NodeType.FILE).join();
        try (OutputStream out = file.outputStream()) {
            byte[] chunk = new byte[256 * 1024];
            for (long off = 0; off < size; off += chunk.length) {
                int n = (int) Math.min(chunk.length, size - off);
                System.arraycopy(TestData.bytes(seed, off, n), 0, chunk, 0, n);
                out.write(chunk, 0, n);
            }
        }
    }

    private static void verify(CreelClient client, String path, long seed, long size) throws IOException {
        CreelNode node = client.lookup(path).join();
        assertEquals(size, node.length(), path);
        try (InputStream in = node.inputStream()) {
            byte[] b = new byte[100_000];
            long off = 0;
            int n;
            while ((n = in.read(b)) > 0) {
                TestData.verify(ByteBuffer.wrap(b, 0, n), seed, off, path);
                off += n;
            }
            assertEquals(size, off, path);
        }
    }

    private static byte[] value(int key, int version) {
        return ("value of key " + key + " version " + version + " ").repeat(key + 1).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static List<String> names(CreelClient client, String path) {
        return client.list(path).join().stream().map(DirectoryEntry::name).sorted().toList();
    }
}
