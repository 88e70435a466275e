package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.ServerStatus;
import io.creel.storage.runtime.StorageServerRuntime;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9: a directory whose records block is on a storage server that is killed keeps taking
 * children. Until the namenode declares the server dead, a listing fails naming the dead server;
 * once it has, new Files can be created in the directory (the namenode moves its records to a live
 * server) and the listing shows every child, old and new. Issue 21: the move happens when the
 * server is declared dead, without waiting for a write, and fsck says what the server took along.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DeadRecordsServerTest {
    private static final int BLOCK = 64 << 10;
    private static final long DECLARED_DEAD_WITHIN_MILLIS = 30_000;

    @Test
    void aDirectoryWhoseRecordsServerDiedTakesNewFilesOnceTheServerIsDeclaredDead() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(3, 0).dram(64L * BLOCK)
                .set("creel.block.size", "64k").set("creel.storage.region.size", "256k")
                .set("creel.storage.heartbeat.interval", "100ms")
                .set("creel.namenode.server.timeout", "1s")
                .set("creel.client.request.timeout", "10s").set("creel.client.connect.timeout", "2s"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/warm", NodeType.DIRECTORY).join(); // the root's records block exists from here on
            client.create("/dir", NodeType.DIRECTORY).join();
            Map<String, Long> before = usedBlocks(running);
            client.create("/dir/sub", NodeType.DIRECTORY).join(); // allocates /dir's records block, nothing else
            String recordsServer = grownServer(before, usedBlocks(running));

            List<String> expected = new ArrayList<>(List.of("sub"));
            for (int i = 0; i < 4; i++) {
                writeFile(client, "/dir/before-" + i, i);
                expected.add("before-" + i);
            }
            StorageServerRuntime victim = running.cluster.storageServers().stream()
                    .filter(s -> s.info().address().equals(recordsServer)).findFirst().orElseThrow();
            victim.close();

            // Nothing has moved the records yet: a reader is told which server it cannot reach.
            CreelException stale = CreelException.unwrap(assertThrows(CompletionException.class,
                    () -> client.list("/dir").join()));
            assertTrue(stale.code() == ErrorCode.UNAVAILABLE || stale.code() == ErrorCode.SERVER_UNKNOWN,
                    stale.toString());
            assertTrue(stale.getMessage().contains(recordsServer), "names the dead server: " + stale.getMessage());

            awaitDead(running, recordsServer);
            for (int i = 0; i < 4; i++) {
                writeFile(client, "/dir/after-" + i, 100 + i);
                expected.add("after-" + i);
            }

            List<String> listed = client.list("/dir").join().stream().map(DirectoryEntry::name).sorted().toList();
            assertEquals(expected.stream().sorted().toList(), listed, "every child, old and new");
            for (int i = 0; i < 4; i++) {
                CreelNode f = client.lookup("/dir/after-" + i).join();
                ByteBuffer back = ByteBuffer.allocate(BLOCK);
                assertEquals(BLOCK, (int) f.read(0, back).join());
                TestData.verify(back.flip(), 100 + i, 0, "/dir/after-" + i);
            }
        }
    }

    @Test
    void aDirectoryWhoseRecordsServerDiedIsListedAgainOnceTheServerIsDeclaredDeadWithoutAnyWriteAndFsckSaysSo()
            throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(3, 0).dram(64L * BLOCK)
                .set("creel.block.size", "64k").set("creel.storage.region.size", "256k")
                .set("creel.storage.heartbeat.interval", "100ms")
                .set("creel.namenode.server.timeout", "1s")
                .set("creel.client.request.timeout", "10s").set("creel.client.connect.timeout", "2s"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/warm", NodeType.DIRECTORY).join();
            client.create("/dir", NodeType.DIRECTORY).join();
            Map<String, Long> before = usedBlocks(running);
            client.create("/dir/sub", NodeType.DIRECTORY).join();
            String recordsServer = grownServer(before, usedBlocks(running));
            List<String> expected = new ArrayList<>(List.of("sub"));
            for (int i = 0; i < 4; i++) {
                client.create("/dir/d-" + i, NodeType.DIRECTORY).join(); // no data blocks: only the records matter
                expected.add("d-" + i);
            }
            running.cluster.storageServers().stream().filter(s -> s.info().address().equals(recordsServer))
                    .findFirst().orElseThrow().close();

            awaitDead(running, recordsServer);
            // Nothing is written into /dir: the namenode moves its records because the server was declared dead.
            List<String> listed = awaitListing(client, "/dir");
            assertEquals(expected.stream().sorted().toList(), listed, "every name, rewritten from the namespace");

            FsckReply fsck = client.fsck("/").join();
            FsckReply.Records dir = fsck.records().stream().filter(r -> r.path().equals("/dir")).findFirst()
                    .orElseThrow(() -> new AssertionError("fsck names /dir's records: " + fsck.records()));
            assertEquals(5, dir.names(), dir.toString());
            assertTrue(dir.server().startsWith(recordsServer) && dir.server().contains("dead"), dir.toString());
            assertFalse(dir.stuck(), "moved: " + dir);
            assertNotEquals(recordsServer, dir.movedTo(), dir.toString());
            assertTrue(dir.unlistedMillis() >= 1000, "unlisted from the last heartbeat to the move, past the 1 s "
                    + "timeout: " + dir);

            java.io.StringWriter out = new java.io.StringWriter();
            new picocli.CommandLine(new io.creel.cli.AdminCommand()).setOut(new java.io.PrintWriter(out))
                    .execute("fsck", "--conf", "creel.namenode.address=" + running.cluster.address().toUri(), "/");
            assertTrue(out.toString().contains("/dir: its directory records (5 names) were on " + recordsServer)
                    && out.toString().contains("rewritten on " + dir.movedTo()), out.toString());
        }
    }

    /** Lists {@code path} until it succeeds (its records may still be moving), at most {@value #DECLARED_DEAD_WITHIN_MILLIS} ms. */
    private static List<String> awaitListing(CreelClient client, String path) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DECLARED_DEAD_WITHIN_MILLIS);
        while (true) {
            try {
                return client.list(path).join().stream().map(DirectoryEntry::name).sorted().toList();
            } catch (CompletionException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(path + " could not be listed within " + DECLARED_DEAD_WITHIN_MILLIS
                            + " ms of its records server's death, with no write into it", e);
                }
                Thread.sleep(50);
            }
        }
    }

    private static void writeFile(CreelClient client, String path, int seed) {
        CreelNode file = client.create(path, NodeType.FILE).join();
        DirectWriter w = file.writer();
        ByteBuffer b = ByteBuffer.allocate(BLOCK);
        TestData.fill(b, seed, 0);
        w.write(b).join();
        assertEquals(BLOCK, w.close().join().length());
    }

    /** Blocks in use per server (host:port), as the namenode reports them. */
    private static Map<String, Long> usedBlocks(Clusters.Running running) {
        Map<String, Long> used = new HashMap<>();
        for (ServerStatus s : running.cluster.namenode().status().servers()) {
            used.put(s.server().address(), s.usedBlocks());
        }
        return used;
    }

    /** The one server whose used blocks grew by one between two reports. */
    private static String grownServer(Map<String, Long> before, Map<String, Long> after) {
        List<String> grown = after.keySet().stream()
                .filter(a -> after.get(a) == before.getOrDefault(a, 0L) + 1).toList();
        assertEquals(1, grown.size(), "one new block, the directory's records: " + before + " -> " + after);
        return grown.get(0);
    }

    private static void awaitDead(Clusters.Running running, String address) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DECLARED_DEAD_WITHIN_MILLIS);
        while (true) {
            ServerStatus s = running.cluster.namenode().status().servers().stream()
                    .filter(x -> x.server().address().equals(address)).findFirst().orElseThrow();
            if (s.state().equals("dead")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the namenode did not declare " + address + " dead within "
                        + DECLARED_DEAD_WITHIN_MILLIS + " ms: " + s);
            }
            Thread.sleep(50);
        }
    }
}
