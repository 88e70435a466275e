package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.FsckReply;
import io.creel.minicluster.MiniCluster;
import io.creel.storage.local.LocalTierKeys;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, replication: a block of a File or KeyValue with factor N is held by N storage servers
 * of different hosts (loopback addresses here); a reader gets the right bytes while one of them
 * dies, also in the middle of its read; a writer goes on when one dies under it; the namenode
 * gives the blocks their copies back once it declares the server dead; a decommissioned server's
 * blocks move before it leaves; the copies survive a namenode restart; and a factor the cluster
 * cannot meet fails with a clear error. (Factor 1 keeps the old behaviour: {@link DeadServerTest}.)
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ReplicationTest {
    private static final int BLOCK = 64 << 10;
    private static final int BLOCKS = 24;

    private static Clusters.Running start(int hosts, String serverTimeout) {
        return Clusters.start(b -> base(b, hosts, serverTimeout));
    }

    private static MiniCluster.Builder base(MiniCluster.Builder b, int hosts, String serverTimeout) {
        return b.hosts(hosts).servers(hosts, 0).dram(256L * BLOCK)
                .set("creel.block.size", "64k").set("creel.storage.region.size", "256k")
                .set("creel.storage.heartbeat.interval", "100ms")
                .set("creel.namenode.server.timeout", serverTimeout)
                .set("creel.namenode.reuse.delay", "200ms")
                .set("creel.client.request.timeout", "5s").set("creel.client.connect.timeout", "1s");
    }

    /** Readers over TCP, as on another machine: a same-host client would map the files of every server here. */
    private static CreelClient remoteClient(MiniCluster cluster) {
        return CreelClient.connect(cluster.clientConf().with(LocalTierKeys.LOCAL_ACCESS, "false"));
    }

    @Test
    void everyBlockOfAReplicatedFileHasItsCopiesOnDifferentHosts() {
        try (Clusters.Running running = start(3, "60s");
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode file = client.create("/two", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            write(file, 0, BLOCKS);
            CreelNode written = client.lookup("/two").join();
            for (BlockLocation b : client.blockLocations(written, 0, written.length()).join()) {
                assertEquals(2, b.copyCount(), "block " + b.blockIndex());
                assertTrue(!b.copy(0).server().host().equals(b.copy(1).server().host()),
                        "copies of block " + b.blockIndex() + " on different hosts: " + b);
            }
            readAll(written, BLOCKS);
            assertEquals(2, written.info().replication(), "the node says its factor");

            // A directory's factor is inherited by what is created in it.
            client.create("/inherit", NodeType.DIRECTORY, CreateOptions.defaults().withReplication(3)).join();
            CreelNode child = client.create("/inherit/f", NodeType.FILE).join();
            write(child, 0, 2);
            CreelNode c = client.lookup("/inherit/f").join();
            assertEquals(3, c.info().replication());
            for (BlockLocation b : client.blockLocations(c, 0, c.length()).join()) {
                assertEquals(3, b.copyCount());
            }
        }
    }

    @Test
    void aReadGetsTheRightBytesWhileACopyDiesInTheMiddleOfIt() throws Exception {
        try (Clusters.Running running = start(3, "60s"); // the namenode still names the dead copy
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode file = client.create("/read", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            write(file, 0, BLOCKS);
            CreelNode written = client.lookup("/read").join();
            List<BlockLocation> blocks = client.blockLocations(written, 0, written.length()).join();
            int victim = serverIndexOf(running.cluster, blocks.get(BLOCKS / 2).copy(0));
            for (int i = 0; i < BLOCKS; i++) {
                if (i == BLOCKS / 2) {
                    running.cluster.stopStorageServer(victim); // the reader holds its locations already
                }
                ByteBuffer back = ByteBuffer.allocate(BLOCK);
                assertEquals(BLOCK, (int) written.read((long) i * BLOCK, back).join());
                TestData.verify(back.flip(), i, 0, "block " + i);
            }
            // A fresh reader too: the namenode answers with every copy, the dead one among them.
            try (CreelClient other = remoteClient(running.cluster)) {
                readAll(other.lookup("/read").join(), BLOCKS);
            }
        }
    }

    @Test
    void aWriteGoesOnWhenACopyDiesAndTheNamenodeRestoresTheFactorAfterwards() throws Exception {
        try (Clusters.Running running = start(3, "1s");
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode file = client.create("/write", NodeType.FILE, CreateOptions.defaults().withReplication(2))
                    .join();
            DirectWriter w = file.writer();
            for (int i = 0; i < BLOCKS / 2; i++) {
                writeBlock(w, i);
            }
            w.sync().join();
            int victim = serverIndexOf(running.cluster, client.blockLocations(client.lookup("/write").join(), 0,
                    (long) BLOCK).join().get(0).copy(0));
            String dead = running.cluster.storageServer(victim).info().address();
            running.cluster.stopStorageServer(victim);
            for (int i = BLOCKS / 2; i < BLOCKS; i++) {
                writeBlock(w, i); // blocks with a copy on the dead server drop it and go on
            }
            assertEquals((long) BLOCKS * BLOCK, w.close().join().length());
            CreelNode written = client.lookup("/write").join();
            readAll(written, BLOCKS);

            await(() -> {
                List<BlockLocation> now;
                try (CreelClient fresh = remoteClient(running.cluster)) {
                    now = fresh.blockLocations(written, 0, written.length()).join();
                }
                for (BlockLocation b : now) {
                    if (b.copyCount() < 2) {
                        return false;
                    }
                    for (BlockLocation c : b.copies()) {
                        if (c.server().address().equals(dead)) {
                            return false;
                        }
                    }
                }
                return true;
            }, "every block has two copies on live servers again");
            FsckReply fsck = client.fsck("/").join();
            assertTrue(fsck.damaged().isEmpty() && fsck.underReplicated().isEmpty(), fsck.toString());
            assertTrue(fsck.replication().repairedBlocks() > 0, "the repair says what it did: " + fsck.replication());
            try (CreelClient other = remoteClient(running.cluster)) {
                readAll(other.lookup("/write").join(), BLOCKS);
            }
        }
    }

    @Test
    void aBlockWhoseCopyHasNowhereToGoIsTriedAgainCalmlyNotInABusyLoop() throws Exception {
        // Two hosts: servers 0 and 2 on 127.0.0.1, server 1 alone on 127.0.0.2. Every block of a
        // factor-2 File has a copy on each host, so with server 1 dead no live server is on a host
        // other than the remaining copy's: the blocks stay short of their factor for good.
        try (Clusters.Running running = Clusters.start(b -> base(b, 2, "1s").servers(3, 0));
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode file = client.create("/stuck", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            write(file, 0, 2);
            running.cluster.stopStorageServer(1);
            await(() -> client.fsck("/").join().replication().failedRepairs() > 0,
                    "the repair tried the blocks and found nowhere to copy them");
            long before = client.fsck("/").join().replication().failedRepairs();
            long window = 2_000;
            Thread.sleep(window); // the measurement itself: how many attempts fit in this window
            FsckReply after = client.fsck("/").join();
            // The cluster does not change, so the blocks are tried once per idle period (500 ms) of
            // the repair thread: a handful of attempts each, where a loop makes tens of thousands.
            long attempts = after.replication().failedRepairs() - before;
            assertTrue(attempts <= 2 * (window / 500 + 2), attempts + " failed repairs of 2 blocks in " + window
                    + " ms: " + after.replication());
            assertEquals(2, after.replication().underReplicated(), after.toString());
            readAll(client.lookup("/stuck").join(), 2); // the copy left serves
        }
    }

    @Test
    void anAppendThatCannotReachTheFirstCopyGoesOnWithTheRepairedOne() throws Exception {
        try (Clusters.Running running = start(3, "1s");
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode file = client.create("/grow", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            DirectWriter w = file.writer();
            w.write(ByteBuffer.wrap(TestData.bytes(7, 0, BLOCK / 2))).join();
            w.close().join();
            BlockLocation before = client.blockLocations(client.lookup("/grow").join(), 0, BLOCK / 2).join().get(0);
            String first = before.copy(0).server().address();
            String second = before.copy(1).server().address();
            running.cluster.stopStorageServer(serverIndexOf(running.cluster, before.copy(1)));
            BlockLocation[] repaired = new BlockLocation[1];
            await(() -> {
                try (CreelClient fresh = remoteClient(running.cluster)) {
                    CreelNode n = fresh.lookup("/grow").join();
                    repaired[0] = fresh.blockLocations(n, 0, n.length()).join().get(0);
                }
                return repaired[0].copyCount() == 2 && !repaired[0].hasCopyOn(before.copy(1).server().serverId());
            }, "block 0 has a new second copy instead of the one on " + second);
            // The copy the repair made has a tag of its own, newer than the first copy's.
            assertEquals(first, repaired[0].copy(0).server().address(), repaired[0].toString());
            assertTrue(Long.compareUnsigned(repaired[0].copy(1).tag(), repaired[0].copy(0).tag()) > 0,
                    repaired[0].toString());

            // Now the first copy's server dies too, and a writer (of a new client: nothing cached)
            // appends to the block: it leaves the unreachable first copy and writes on into the
            // repaired one, which must stay named by its own tag — its server refuses any other.
            running.cluster.stopStorageServer(serverIndexOf(running.cluster, repaired[0].copy(0)));
            try (CreelClient appender = remoteClient(running.cluster)) {
                DirectWriter a = appender.openForAppend("/grow").join().writer();
                a.write(ByteBuffer.wrap(TestData.bytes(7, BLOCK / 2, BLOCK / 4))).join();
                a.write(ByteBuffer.wrap(TestData.bytes(7, 3 * BLOCK / 4, BLOCK / 4))).join();
                assertEquals(BLOCK, a.close().join().length());
            }
            try (CreelClient reader = remoteClient(running.cluster)) {
                CreelNode n = reader.lookup("/grow").join();
                BlockLocation now = reader.blockLocations(n, 0, n.length()).join().get(0);
                assertEquals(List.of(repaired[0].copy(1)), now.copies(), "only the repaired copy is left, as it was");
                ByteBuffer back = ByteBuffer.allocate(BLOCK);
                assertEquals(BLOCK, (int) n.read(0, back).join());
                TestData.verify(back.flip(), 7, 0, "/grow");
            }
        }
    }

    @Test
    void aWriterWhoseLocationsPredateANamenodeRestartStillLeavesAnUnreachableCopy(@TempDir Path logDir)
            throws Exception {
        try (Clusters.Running running = Clusters.start(b -> base(b, 3, "60s")
                .set("creel.namenode.log.dir", logDir.toString()));
             CreelClient client = remoteClient(running.cluster)) {
            MiniCluster cluster = running.cluster;
            // Server 0 comes back with a fresh medium, so the namenode gives it a new id, the fourth:
            // after the namenode restarts, the three servers of its log get ids 1 to 3, so the id this
            // client learned for server 0 is then nobody's, or another server's.
            cluster.stopStorageServer(0);
            cluster.startStorageServer(0);
            awaitLive(cluster);
            String zero = cluster.storageServer(0).info().address();
            // One and a half blocks, each with a copy on server 0; the writer's client caches where.
            CreelNode file = client.create("/cached", NodeType.FILE, CreateOptions.defaults().withReplication(2)
                    .withLocationClass("127.0.0.1")).join();
            DirectWriter w = file.writer();
            w.write(ByteBuffer.wrap(TestData.bytes(5, 0, BLOCK + BLOCK / 2))).join();
            w.close().join();
            BlockLocation before = client.blockLocations(client.lookup("/cached").join(), 0, BLOCK + BLOCK / 2).join()
                    .get(1);
            int idBefore = before.copies().stream().filter(c -> c.server().address().equals(zero)).findFirst()
                    .orElseThrow(() -> new AssertionError("no copy on server 0 (" + zero + "): " + before))
                    .server().serverId();

            cluster.restartNamenode();
            awaitLive(cluster);
            try (CreelClient fresh = remoteClient(cluster)) {
                CreelNode n = fresh.lookup("/cached").join();
                BlockLocation now = fresh.blockLocations(n, 0, n.length()).join().get(1);
                int idNow = now.copies().stream().filter(c -> c.server().address().equals(zero)).findFirst()
                        .orElseThrow().server().serverId();
                assertNotEquals(idBefore, idNow, "the premise: server 0's id changed with the restart");
            }

            // Server 0 dies; the same client appends, from the location of block 1 it cached before.
            cluster.stopStorageServer(0);
            DirectWriter a = client.openForAppend("/cached").join().writer();
            a.write(ByteBuffer.wrap(TestData.bytes(5, BLOCK + BLOCK / 2, BLOCK / 2))).join();
            assertEquals(2L * BLOCK, a.close().join().length());
            try (CreelClient reader = remoteClient(cluster)) {
                CreelNode n = reader.lookup("/cached").join();
                // The copy the writer could not reach left block 1: it lacks the appended bytes. (Once the
                // writer closed, the repair may already have made a new copy elsewhere: never on server 0.)
                BlockLocation after = reader.blockLocations(n, 0, n.length()).join().get(1);
                assertTrue(after.copies().stream().noneMatch(c -> c.server().address().equals(zero)),
                        after.toString());
                ByteBuffer back = ByteBuffer.allocate(2 * BLOCK);
                assertEquals(2 * BLOCK, (int) n.read(0, back).join());
                TestData.verify(back.flip(), 5, 0, "/cached");
            }
        }
    }

    @Test
    void anAppendWritesToTheCopyTheRepairAddedAfterItsClientCachedTheBlock() throws Exception {
        try (Clusters.Running running = start(3, "1s");
             CreelClient client = remoteClient(running.cluster)) {
            MiniCluster cluster = running.cluster;
            CreelNode file = client.create("/appended", NodeType.FILE, CreateOptions.defaults().withReplication(2))
                    .join();
            DirectWriter w = file.writer();
            w.write(ByteBuffer.wrap(TestData.bytes(9, 0, BLOCK + BLOCK / 2))).join();
            w.close().join();
            CreelNode written = client.lookup("/appended").join();
            ByteBuffer all = ByteBuffer.allocate(BLOCK + BLOCK / 2);
            written.read(0, all).join(); // this client caches where both blocks are
            BlockLocation before = client.blockLocations(written, 0, written.length()).join().get(1);
            String gone = before.copy(1).server().address();
            cluster.stopStorageServer(serverIndexOf(cluster, before.copy(1)));
            BlockLocation[] repaired = new BlockLocation[1];
            await(() -> {
                try (CreelClient fresh = remoteClient(cluster)) {
                    CreelNode n = fresh.lookup("/appended").join();
                    repaired[0] = fresh.blockLocations(n, 0, n.length()).join().get(1);
                }
                return repaired[0].copyCount() == 2
                        && repaired[0].copies().stream().noneMatch(c -> c.server().address().equals(gone));
            }, "block 1 has a new copy instead of the one on " + gone);

            // The same client appends: its writer must write to the copies the block has now.
            DirectWriter a = client.openForAppend("/appended").join().writer();
            a.write(ByteBuffer.wrap(TestData.bytes(9, BLOCK + BLOCK / 2, BLOCK / 2))).join();
            assertEquals(2L * BLOCK, a.close().join().length());
            // With the first copy's server gone as well, the repaired copy alone holds the whole block.
            cluster.stopStorageServer(serverIndexOf(cluster, repaired[0].copy(0)));
            try (CreelClient reader = remoteClient(cluster)) {
                CreelNode n = reader.lookup("/appended").join();
                ByteBuffer back = ByteBuffer.allocate(BLOCK);
                assertEquals(BLOCK, (int) n.read(BLOCK, back).join());
                TestData.verify(back.flip(), 9, BLOCK, "/appended block 1");
            }
        }
    }

    @Test
    void aDecommissionedServersBlocksMoveBeforeItLeaves() throws Exception {
        try (Clusters.Running running = start(3, "60s");
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode two = client.create("/d-two", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            write(two, 0, 8);
            CreelNode one = client.create("/d-one", NodeType.FILE).join();
            write(one, 100, 8);
            String leaving = running.cluster.storageServer(0).info().address();
            client.decommission(leaving).join();
            await(() -> client.status().join().stream().flatMap(r -> r.servers().stream())
                    .anyMatch(s -> s.server().address().equals(leaving) && s.state().equals("decommissioned")),
                    "the server is decommissioned once its blocks left");
            running.cluster.stopStorageServer(0);
            try (CreelClient fresh = remoteClient(running.cluster)) { // the writer's client caches where blocks were
                for (String path : List.of("/d-two", "/d-one")) {
                    CreelNode n = fresh.lookup(path).join();
                    for (BlockLocation b : fresh.blockLocations(n, 0, n.length()).join()) {
                    for (BlockLocation c : b.copies()) {
                        assertFalse(c.server().address().equals(leaving), path + " block " + b.blockIndex());
                    }
                        assertEquals(path.equals("/d-two") ? 2 : 1, b.copyCount(), path + " keeps its factor");
                    }
                }
            }
            readAll(client.lookup("/d-two").join(), 8);
            readAll(client.lookup("/d-one").join(), 8, 100);
        }
    }

    @Test
    void copiesSurviveANamenodeRestart(@TempDir Path logDir) {
        try (Clusters.Running running = Clusters.start(b -> base(b, 3, "60s")
                .set("creel.storage.persistent", "true").set("creel.namenode.log.dir", logDir.toString()));
             CreelClient client = remoteClient(running.cluster)) {
            CreelNode file = client.create("/pf", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            write(file, 0, 4);
            List<BlockLocation> before = client.blockLocations(client.lookup("/pf").join(), 0, 4L * BLOCK).join();
            running.cluster.restartNamenode();
            Clusters.awaitServersLive(running.cluster, 3);
            CreelNode again = client.lookup("/pf").join();
            List<BlockLocation> after = client.blockLocations(again, 0, again.length()).join();
            assertEquals(before.size(), after.size());
            for (int i = 0; i < before.size(); i++) {
                assertEquals(copiesOf(before.get(i)), copiesOf(after.get(i)), "block " + i);
            }
            assertEquals(2, again.info().replication());
            readAll(again, 4);
        }
    }

    @Test
    void aFactorTheClusterCannotMeetFailsClearlyAndFactorsAreChecked() {
        try (Clusters.Running running = start(2, "60s");
             CreelClient client = remoteClient(running.cluster)) {
            CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> client.create("/three", NodeType.FILE, CreateOptions.defaults().withReplication(3)).join());
            CreelException ce = CreelException.unwrap(e);
            assertEquals(ErrorCode.UNAVAILABLE, ce.code(), ce.toString());
            assertTrue(ce.getMessage().contains("replication 3") && ce.getMessage().contains("different hosts"),
                    ce.getMessage());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> CreateOptions.defaults().withReplication(9));
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> CreateOptions.defaults().withReplication(-1));
        }
    }

    @Test
    void aFactorWhoseOtherHostsAreFullRunsOutOfSpaceRatherThanOutOfHosts() {
        // Eight blocks a server; the servers of two of the three hosts are then filled.
        try (Clusters.Running running = Clusters.start(b -> base(b, 3, "60s").dram(8L * BLOCK));
             CreelClient client = remoteClient(running.cluster)) {
            for (String host : List.of("127.0.0.2", "127.0.0.3")) {
                for (int i = 0; freeBlocks(running.cluster, host) > 0; i++) {
                    assertTrue(i < 20, "cannot fill the server on " + host);
                    write(client.create("/fill-" + host + "-" + i, NodeType.FILE,
                            CreateOptions.defaults().withLocationClass(host)).join(), i, 1);
                }
            }
            // Hosts for a second copy are there, their space is not: the error callers react to by
            // freeing space or waiting, as for a full cluster without replication.
            CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> write(client.create("/two", NodeType.FILE, CreateOptions.defaults().withReplication(2))
                            .join(), 0, 1));
            CreelException ce = CreelException.unwrap(e);
            assertEquals(ErrorCode.OUT_OF_SPACE, ce.code(), ce.toString());
            assertTrue(ce.getMessage().contains("replication 2") && ce.getMessage().contains("on a host other than"),
                    ce.getMessage());
        }
    }

    // ------------------------------------------------------------------ helpers

    private static long freeBlocks(MiniCluster cluster, String host) {
        return cluster.namenode().status().servers().stream().filter(s -> s.server().host().equals(host))
                .mapToLong(io.creel.common.protocol.ServerStatus::freeBlocks).sum();
    }

    /** Waits until the namenode reports every running server live (identities they replaced may be listed too). */
    private static void awaitLive(MiniCluster cluster) throws InterruptedException {
        await(() -> cluster.storageServers().stream().allMatch(r -> cluster.namenode().status().servers().stream()
                .anyMatch(s -> s.server().address().equals(r.info().address()) && s.state().equals("live"))),
                "every running storage server live");
    }

    private static Set<String> copiesOf(BlockLocation b) {
        Set<String> out = new HashSet<>();
        for (BlockLocation c : b.copies()) {
            out.add(c.server().address() + "#" + c.blockNumber() + "#" + c.tag());
        }
        return out;
    }

    private static int serverIndexOf(MiniCluster cluster, BlockLocation copy) {
        for (int i = 0; i < cluster.storageServerCount(); i++) {
            if (cluster.storageServer(i) != null
                    && cluster.storageServer(i).info().address().equals(copy.server().address())) {
                return i;
            }
        }
        throw new AssertionError("no server of the cluster holds " + copy);
    }

    private static void write(CreelNode node, long seed, int blocks) {
        DirectWriter w = node.writer();
        for (int i = 0; i < blocks; i++) {
            ByteBuffer b = ByteBuffer.allocate(BLOCK);
            TestData.fill(b, seed + i, 0);
            w.write(b).join();
        }
        w.close().join();
    }

    private static void writeBlock(DirectWriter w, int i) {
        ByteBuffer b = ByteBuffer.allocate(BLOCK);
        TestData.fill(b, i, 0);
        w.write(b).join();
    }

    private static void readAll(CreelNode node, int blocks) {
        readAll(node, blocks, 0);
    }

    private static void readAll(CreelNode node, int blocks, long seed) {
        assertEquals((long) blocks * BLOCK, node.length());
        for (int i = 0; i < blocks; i++) {
            ByteBuffer back = ByteBuffer.allocate(BLOCK);
            assertEquals(BLOCK, (int) node.read((long) i * BLOCK, back).join());
            TestData.verify(back.flip(), seed + i, 0, node.path() + " block " + i);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within 30 s: " + what);
            }
            Thread.sleep(100);
        }
    }
}
