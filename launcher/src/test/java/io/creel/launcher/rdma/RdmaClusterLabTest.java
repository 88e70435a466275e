package io.creel.launcher.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.storage.rdma.lab.LabEnvironment;
import io.creel.storage.rdma.lab.RdmaLab;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * Creel end to end over RDMA, in the lab guest on soft-RoCE: a namenode at rdma://, DRAM storage
 * servers exporting over RDMA, each a real daemon in its own JVM, and clients in this JVM that may
 * use rdma:// for metadata and the rdma transport for blocks and nothing else (a silent fallback to
 * TCP would make these tests pass for the wrong reason). Emulated RDMA is slow: correctness only.
 */
@RdmaLab
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RdmaClusterLabTest {
    private static final int MIB = 1 << 20;
    private static final long WAIT = 240;

    private RdmaLabCluster cluster;
    private RdmaLabCluster.Datanode main;

    @BeforeAll
    void startTheCluster() throws Exception {
        InetAddress address = LabEnvironment.requireRdma();
        String out = System.getenv("CREEL_LAB_OUT");
        Path dir = out != null ? Path.of(out, "cluster") : Files.createTempDirectory("creel-rdma-lab");
        cluster = new RdmaLabCluster(address, dir);
        main = cluster.datanode("dram-main", "dram", "96m");
    }

    @AfterAll
    void stopTheCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT, TimeUnit.SECONDS);
    }

    /** Bytes of file {@code seed} at {@code offset}: every position distinct, so misplaced bytes show. */
    private static byte at(long seed, long offset) {
        long x = (offset + 1) * 0x9E3779B97F4A7C15L ^ seed * 0xBF58476D1CE4E5B9L;
        return (byte) (x ^ (x >>> 29) ^ (x >>> 47));
    }

    private static ByteBuffer data(long seed, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        for (int i = 0; i < length; i++) {
            b.put(i, at(seed, i));
        }
        return b;
    }

    private static void write(CreelClient c, String path, long seed, int length, CreateOptions options)
            throws Exception {
        CreelNode n = await(c.create(path, NodeType.FILE, options));
        DirectWriter w = n.writer();
        await(w.write(data(seed, length)));
        await(w.close());
    }

    private static void verify(CreelClient c, String path, long seed, int length) throws Exception {
        CreelNode n = await(c.lookup(path));
        assertEquals(length, n.length(), path);
        ByteBuffer got = ByteBuffer.allocate(length);
        DirectReader r = n.reader();
        while (got.hasRemaining()) {
            int read = await(r.read(got));
            assertTrue(read > 0, path + ": read returned " + read + " at " + got.position());
        }
        assertArrayEquals(data(seed, length).array(), got.array(), path + " came back as written");
    }

    @Test
    @Order(1)
    void metadataCallsGoOverRdmaRpcAndAgreeWithTcp() throws Exception {
        assertTrue(cluster.namenode().awaitLine("Creel namenode listening", 5).contains("(and over rdma://)"));
        try (CreelClient rdma = CreelClient.connect(cluster.rdmaClientConf());
             CreelClient tcp = CreelClient.connect(cluster.tcpClientConf())) {
            await(rdma.create("/meta", NodeType.DIRECTORY));
            for (int i = 0; i < 20; i++) {
                await(rdma.create("/meta/d" + i, NodeType.DIRECTORY));
            }
            await(rdma.create("/meta/table", NodeType.TABLE));
            await(rdma.move("/meta/d0", "/meta/moved"));
            await(rdma.delete("/meta/d1", false));
            List<String> names = new ArrayList<>();
            for (DirectoryEntry e : await(rdma.list("/meta"))) {
                names.add(e.path());
            }
            assertTrue(names.contains("/meta/moved") && !names.contains("/meta/d0") && !names.contains("/meta/d1"),
                    names.toString());
            assertEquals(20, names.size(), names.toString());
            assertEquals(20, await(tcp.list("/meta")).size(), "a TCP client sees the same namespace");

            // An error travels back over RDMA as it does over TCP.
            try {
                await(rdma.lookup("/meta/nothing"));
                fail("a lookup of a missing node succeeded");
            } catch (ExecutionException e) {
                assertEquals(ErrorCode.NOT_FOUND, CreelException.unwrap(e.getCause()).code());
            }

            List<StatusReply> status = await(rdma.status());
            ServerStatus s = status.get(0).servers().stream().filter(x -> x.server().address().equals(main.address()))
                    .findFirst().orElseThrow();
            assertFalse(s.server().attribute("rdma.segments").isEmpty(), "the server describes its RDMA export");
            assertEquals(LabEnvironment.requireRdma().getHostAddress(), s.server().attribute("rdma.address"));

            // Many calls in flight at once on the one connection.
            List<CompletableFuture<CreelNode>> many = new ArrayList<>();
            for (int i = 2; i < 20; i++) {
                many.add(rdma.lookup("/meta/d" + i));
            }
            for (CompletableFuture<CreelNode> f : many) {
                assertEquals(NodeType.DIRECTORY, await(f).type());
            }
        }
    }

    @Test
    @Order(2)
    void putAndGetAcrossManyBlocksInBothDirections() throws Exception {
        int big = 24 * MIB + 12345;
        try (CreelClient rdma = CreelClient.connect(cluster.rdmaClientConf());
             CreelClient tcp = CreelClient.connect(cluster.tcpClientConf())) {
            await(rdma.create("/data", NodeType.DIRECTORY));
            write(rdma, "/data/over-rdma", 1, big, CreateOptions.defaults());
            verify(rdma, "/data/over-rdma", 1, big);
            verify(tcp, "/data/over-rdma", 1, big); // what RDMA wrote is what the server serves over TCP

            write(tcp, "/data/over-tcp", 2, 5 * MIB + 1, CreateOptions.defaults());
            verify(rdma, "/data/over-tcp", 2, 5 * MIB + 1); // and RDMA reads what TCP wrote

            // Small values through a table, read back at once.
            await(rdma.create("/data/kv", NodeType.TABLE));
            for (int i = 0; i < 10; i++) {
                await(rdma.putValue("/data/kv", "k" + i, ByteBuffer.wrap(("value " + i).getBytes(StandardCharsets.UTF_8))));
            }
            for (int i = 0; i < 10; i++) {
                ByteBuffer v = await(rdma.getValue("/data/kv", "k" + i));
                assertEquals("value " + i, StandardCharsets.UTF_8.decode(v).toString());
            }
            // Reads of pieces at odd offsets within and across blocks.
            CreelNode n = await(rdma.lookup("/data/over-rdma"));
            for (long pos : new long[] {0, MIB - 7, 3L * MIB + 100, big - 9}) {
                ByteBuffer piece = ByteBuffer.allocate((int) Math.min(2 * MIB + 3, big - pos));
                int got = await(n.read(pos, piece));
                for (int i = 0; i < got; i++) {
                    if (piece.get(i) != at(1, pos + i)) {
                        fail("byte " + (pos + i) + " of /data/over-rdma read wrong");
                    }
                }
            }
        }
    }

    @Test
    @Order(3)
    void concurrentClientsEachReadWhatTheyAndTheOthersWrote() throws Exception {
        int clients = 4;
        int files = 3;
        int size = 3 * MIB + 777;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try (CreelClient setup = CreelClient.connect(cluster.rdmaClientConf())) {
            await(setup.create("/many", NodeType.DIRECTORY));
        }
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(pool.submit(() -> {
                    try (CreelClient me = CreelClient.connect(cluster.rdmaClientConf())) {
                        for (int f = 0; f < files; f++) {
                            write(me, "/many/c" + client + "-" + f, 100 + client * 10 + f, size, CreateOptions.defaults());
                        }
                        for (int f = 0; f < files; f++) {
                            verify(me, "/many/c" + client + "-" + f, 100 + client * 10 + f, size);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(WAIT * 2, TimeUnit.SECONDS);
            }
            try (CreelClient other = CreelClient.connect(cluster.rdmaClientConf())) {
                for (int c = 0; c < clients; c++) {
                    verify(other, "/many/c" + c + "-" + (files - 1), 100 + c * 10 + files - 1, size);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(4)
    void aReaderHoldingLocationsOfAReusedBlockNeverGetsTheNewOwnersBytes() throws Exception {
        cluster.datanode("dram-stale", "stale", "8m");
        CreateOptions stale = CreateOptions.defaults().withStorageClass("stale");
        try (CreelClient c = CreelClient.connect(cluster.rdmaClientConf())) {
            await(c.create("/stale", NodeType.DIRECTORY));
            write(c, "/stale/a", 7, 4 * MIB, stale);
            CreelNode oldA = await(c.lookup("/stale/a"));
            ByteBuffer first = ByteBuffer.allocate(4 * MIB);
            DirectReader reader = oldA.reader();
            while (first.hasRemaining()) {
                await(reader.read(first)); // caches every block location of /stale/a
            }
            await(c.delete("/stale/a", false));

            // B takes the whole tier, A's blocks included (the namenode reuses them at once).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
            while (true) {
                try {
                    write(c, "/stale/b", 8, 7 * MIB, stale);
                    break;
                } catch (ExecutionException e) {
                    if (CreelException.unwrap(e.getCause()).code() != ErrorCode.OUT_OF_SPACE
                            || System.nanoTime() > deadline) {
                        throw e;
                    }
                    c.delete("/stale/b", false).exceptionally(t -> null).get(WAIT, TimeUnit.SECONDS);
                    Thread.sleep(200);
                }
            }
            ByteBuffer again = ByteBuffer.allocate(4 * MIB);
            try {
                int n = oldA.read(0, again).get(WAIT, TimeUnit.SECONDS);
                for (int i = 0; i < n; i++) {
                    if (again.get(i) != at(7, i)) {
                        fail("a read through a stale location returned bytes that are not /stale/a's at " + i);
                    }
                }
                fail("a read of deleted /stale/a whose blocks were reused returned " + n + " bytes");
            } catch (ExecutionException e) {
                ErrorCode code = CreelException.unwrap(e.getCause()).code();
                assertTrue(code == ErrorCode.STALE_BLOCK || code == ErrorCode.NOT_FOUND,
                        "expected STALE_BLOCK or NOT_FOUND, got " + CreelException.unwrap(e.getCause()));
            }
            verify(c, "/stale/b", 8, 7 * MIB);
        }
    }

    @Test
    @Order(5)
    void aStorageServerKilledMidReadFailsTheReadFastNamingTheServer() throws Exception {
        RdmaLabCluster.Datanode victim = cluster.datanode("dram-victim", "victim", "48m");
        int size = 40 * MIB;
        try (CreelClient c = CreelClient.connect(cluster.rdmaClientConf())) {
            await(c.create("/victim", NodeType.DIRECTORY));
            write(c, "/victim/big", 9, size, CreateOptions.defaults().withStorageClass("victim"));
            CreelNode n = await(c.lookup("/victim/big"));
            DirectReader reader = n.reader();
            ByteBuffer chunk = ByteBuffer.allocate(MIB);
            long read = 0;
            long killedAt = 0;
            CreelException failure = null;
            while (read < size && failure == null) {
                if (read >= 4L * MIB && killedAt == 0) {
                    victim.daemon().kill(); // SIGKILL mid-read
                    killedAt = System.nanoTime();
                }
                chunk.clear();
                try {
                    read += await(reader.read(chunk));
                } catch (ExecutionException e) {
                    failure = CreelException.unwrap(e.getCause());
                }
            }
            assertTrue(killedAt != 0, "the server was killed mid-read");
            assertTrue(failure != null, "the read went on after its server was killed: " + read + " bytes");
            double seconds = (System.nanoTime() - killedAt) / 1e9;
            System.out.printf("rdma lab: the read failed %.1f s after its server was killed: %s%n", seconds,
                    failure.getMessage());
            assertNotEquals(ErrorCode.TIMEOUT, failure.code(), "noticed by the transport, not by a deadline: "
                    + failure.getMessage());
            assertEquals(ErrorCode.UNAVAILABLE, failure.code(), failure.getMessage());
            assertTrue(failure.getMessage().contains("storage server " + victim.address()),
                    "names the server: " + failure.getMessage());
            assertTrue(failure.getMessage().contains("/victim/big"), "names the file: " + failure.getMessage());
        }
        assertTrue(main.daemon().isAlive(), "the other servers keep serving");
        try (CreelClient c = CreelClient.connect(cluster.rdmaClientConf())) {
            verify(c, "/data/over-tcp", 2, 5 * MIB + 1);
        }
    }
}
