package io.creel.storage.nvmf.tier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.rpc.EventLoops;
import io.creel.namenode.NamenodeServer;
import io.creel.storage.nvmf.NvmfKeys;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.transport.SharedTargets;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Creel cluster whose flash tier is an NVMe-oF namespace of the lab's kernel target: a namenode, a
 * 32 MiB DRAM server and an nvmf server in this JVM, storage classes {@code dram,nvmf}. A file larger
 * than DRAM fills it and spills into the nvmf tier; clients read it back byte-identical straight from
 * the target (over NVMe/TCP or RDMA) and through the server, and see the tier in the status report.
 */
@Tag("nvmf-lab")
class ClusterOnRealTargetLabTest {
    /** Over NVMe/TCP, and over RDMA where this run covers it (LabTarget#rdmaCovered). */
    static Stream<Arguments> samePair() {
        return LabTarget.fabricPairs("tcp, tcp", "rdma, rdma");
    }

    private static final long MIB = 1 << 20;
    private static final long FILE = 80 * MIB + 4321; // past the DRAM tier, not block-aligned

    @ParameterizedTest(name = "server over {0}, clients over {1}")
    @MethodSource("samePair")
    void filesSpillFromDramIntoTheNvmfTierAndReadBackIdentically(String serverFabric, String clientFabric)
            throws IOException {
        Fabric client = Fabric.parse(clientFabric);
        Map<String, String> settings = new LinkedHashMap<>(LabTarget.settings(Fabric.parse(serverFabric), client));
        Path dramDir = Files.createTempDirectory("creel-nvmf-lab-dram");
        settings.put("creel.storage.dram.path", dramDir.toString());
        settings.put("creel.storage.dram.size", "32m");
        settings.put("creel.storage.advertise.host", "127.0.0.1");
        settings.put("creel.storage.heartbeat.interval", "500ms");
        CreelConf base = NvmfServerFixture.baseConf(settings);
        EventLoops loops = EventLoops.create(base, "nvmf-cluster-lab");
        NamenodeServer namenode = NamenodeServer.start(base, "127.0.0.1", 0, loops);
        CreelConf conf = base.with(ConfKeys.NAMENODE_ADDRESS, "creel://127.0.0.1:" + namenode.port());
        try (StorageServerRuntime dram = StorageServerRuntime.start(conf, "dram", loops);
             StorageServerRuntime nvmf = StorageServerRuntime.start(conf, "nvmf", loops)) {
            dram.awaitRegistered(30_000);
            nvmf.awaitRegistered(30_000);
            int controllersBefore = SharedTargets.process().controllers();
            try (CreelClient direct = CreelClient.connect(conf)) {
                CreelNode file = direct.create("/spilled", NodeType.FILE).join();
                write(file, 7);
                CreelNode small = direct.create("/small", NodeType.FILE, CreateOptions.defaults()
                        .withStorageClass("nvmf")).join();
                write(small, 9, 3 * MIB + 17);

                Map<String, long[]> used = usedAndFree(direct);
                assertEquals(0, used.get("dram")[1], "DRAM is full before anything goes to the nvmf tier");
                assertTrue(used.get("nvmf")[0] >= (FILE / MIB) - 32 + 3, "the rest is in the nvmf tier: "
                        + used.get("nvmf")[0] + " blocks");

                verify(direct.lookup("/spilled").join(), 7, FILE);
                verify(direct.lookup("/small").join(), 9, 3 * MIB + 17);
                assertEquals(controllersBefore + 1, SharedTargets.process().controllers(),
                        "the client reached the target itself, with one controller");
            }
            // The same bytes through the server only.
            try (CreelClient viaServer = CreelClient.connect(conf.with(NvmfKeys.CLIENT_ACCESS, "false"))) {
                verify(viaServer.lookup("/spilled").join(), 7, FILE);
                verify(viaServer.lookup("/small").join(), 9, 3 * MIB + 17);
                // Blocks freed by a delete are reused later without any reader seeing old bytes.
                viaServer.delete("/small", false).join();
                CreelNode again = viaServer.create("/again", NodeType.FILE, CreateOptions.defaults()
                        .withStorageClass("nvmf")).join();
                write(again, 11, 2 * MIB);
            }
            try (CreelClient direct = CreelClient.connect(conf)) {
                verify(direct.lookup("/again").join(), 11, 2 * MIB);
            }
        } finally {
            namenode.close();
            loops.close();
            delete(dramDir);
        }
    }

    private static void write(CreelNode node, long seed) {
        write(node, seed, FILE);
    }

    private static void write(CreelNode node, long seed, long size) {
        DirectWriter w = node.writer();
        ByteBuffer buf = ByteBuffer.allocateDirect((int) (3 * MIB + 5));
        for (long off = 0; off < size; off += buf.capacity()) {
            int n = (int) Math.min(buf.capacity(), size - off);
            buf.clear().limit(n);
            fill(buf, seed, off);
            w.write(buf).join();
        }
        assertEquals(size, w.close().join().length());
    }

    private static void verify(CreelNode node, long seed, long size) {
        assertEquals(size, node.length());
        DirectReader r = node.reader();
        ByteBuffer buf = ByteBuffer.allocateDirect((int) (2 * MIB + 3));
        ByteBuffer expected = ByteBuffer.allocateDirect(buf.capacity());
        long off = 0;
        while (true) {
            buf.clear();
            int n = r.read(buf).join();
            if (n < 0) {
                break;
            }
            buf.flip();
            expected.clear().limit(n);
            fill(expected, seed, off); // absolute puts: position 0, limit n
            if (!buf.equals(expected)) {
                throw new AssertionError(node.path() + ": bytes " + off + ".." + (off + n) + " differ from what was "
                        + "written");
            }
            off += n;
        }
        assertEquals(size, off, node.path() + " read to its end");
    }

    /** Bytes that depend on the seed and the file offset only. */
    private static void fill(ByteBuffer b, long seed, long offset) {
        for (int i = b.position(); i < b.limit(); i++) {
            long x = (offset + i - b.position()) * 0x9E3779B97F4A7C15L + seed;
            b.put(i, (byte) (x ^ (x >>> 29)));
        }
    }

    /** Per storage class: blocks used and free, over every server and namenode. */
    private static Map<String, long[]> usedAndFree(CreelClient c) {
        Map<String, long[]> m = new LinkedHashMap<>();
        for (StatusReply r : c.status().join()) {
            for (ServerStatus s : r.servers()) {
                long[] v = m.computeIfAbsent(s.server().storageClass(), k -> new long[2]);
                v[0] += s.usedBlocks();
                v[1] += s.freeBlocks();
                assertEquals("live", s.state(), s.server().address());
            }
        }
        return m;
    }

    private static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
