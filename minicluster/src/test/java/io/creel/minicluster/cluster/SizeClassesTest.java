package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.namenode.NamenodeKeys;
import io.creel.storage.local.LocalTierKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files and KeyValues between the inline limit and a block cost about their size: their first
 * block comes from a size-class server (a storage server with a smaller {@code creel.storage.block.size}),
 * and every guarantee of a block holds for it — tags against stale readers on the mapped path and
 * over TCP, whole blocks past it, space back on delete.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SizeClassesTest {
    private static final int KIB = 1 << 10;
    private static final int MIB = 1 << 20;

    @Test
    void tenThousandSmallFilesAndValuesUseAboutTheirBytesOfTheTier() throws Exception {
        int files = 10_000;
        int values = 10_000;
        int fileSize = 64 * KIB;
        int valueSize = 16 * KIB;
        try (Clusters.Running running = Clusters.start(b -> b.dram(768L * MIB).servers(1, 0)
                .sizeClasses(16 * KIB, 64 * KIB));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/out", NodeType.DIRECTORY).join();
            client.create("/kv", NodeType.TABLE).join();
            long before = usedBytes(client.status().join());

            inParallel(files, i -> client.create("/out/part-" + i, NodeType.FILE).thenCompose(n -> {
                DirectWriter w = n.writer(); // no size hint: the default first block, 64 KiB
                w.write(filled(fileSize, i));
                return w.close();
            }));
            inParallel(values, i -> client.putValue("/kv", "k" + i, filled(valueSize, -i))); // sized by the value

            long bytes = (long) files * fileSize + (long) values * valueSize;
            long used = usedBytes(client.status().join()) - before;
            assertTrue(used <= bytes * 5 / 4, "the tier holds " + used + " bytes for " + bytes + " bytes of data ("
                    + String.format("%.3f", (double) used / bytes) + "x; at most 1.25x)");
            assertTrue(used >= bytes, "the tier holds " + used + " bytes for " + bytes + " bytes of data");

            for (int i : new int[] {0, 1, files / 2, files - 1}) {
                ByteBuffer got = ByteBuffer.allocate(fileSize);
                assertEquals(fileSize, client.lookup("/out/part-" + i).join().read(0, got).join());
                got.flip();
                TestData.verify(got, i, 0, "/out/part-" + i);
                ByteBuffer v = client.getValue("/kv", "k" + i).join();
                TestData.verify(v, -i, 0, "/kv/k" + i);
            }

            client.delete("/out", true).join();
            client.delete("/kv", true).join();
            assertEquals(before, usedBytes(client.status().join()), "bytes of the tier in use after the deletes");
        }
    }

    @Test
    void aFileGoesOnInWholeBlocksPastItsFirstBlock() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(64L * MIB).servers(1, 0).sizeClasses(64 * KIB));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            int length = 3 * MIB + 5;
            DirectWriter w = client.create("/grown", NodeType.FILE).join().writer();
            // Pieces of odd lengths, so that writes straddle the short first block's end and later blocks'.
            ByteBuffer all = ByteBuffer.allocate(length);
            TestData.fill(all, 7, 0);
            for (int at = 0; at < length; ) {
                int n = Math.min(length - at, 40_000 + at % 777);
                w.write(all.slice(at, n)).join();
                at += n;
            }
            w.close().join();

            CreelNode node = client.lookup("/grown").join();
            List<BlockLocation> blocks = client.blockLocations(node, 0, length).join();
            assertEquals(64 * KIB, blocks.get(0).server().blockSize(), "block 0 is a size class's");
            assertEquals(4, blocks.size(), "64 KiB, then whole blocks: " + blocks);
            for (BlockLocation b : blocks.subList(1, blocks.size())) {
                assertEquals(MIB, b.server().blockSize(), "block " + b.blockIndex() + " is whole");
            }
            ByteBuffer got = ByteBuffer.allocate(length);
            assertEquals(length, node.read(0, got).join());
            got.flip();
            TestData.verify(got, 7, 0, "/grown");
            for (long at : new long[] {64 * KIB - 3, 64 * KIB, MIB + 64 * KIB - 1, 2 * MIB, length - 9}) {
                ByteBuffer part = ByteBuffer.allocate((int) Math.min(10_000, length - at));
                node.read(at, part).join();
                part.flip();
                TestData.verify(part, 7, at, "/grown at " + at);
            }

            // An append to a node whose first block is short starts where the layout says.
            DirectWriter a = client.create("/appended", NodeType.FILE).join().writer();
            a.write(ByteBuffer.wrap(TestData.bytes(9, 0, 40 * KIB))).join();
            a.close().join();
            DirectWriter more = client.openForAppend("/appended").join().writer();
            more.write(ByteBuffer.wrap(TestData.bytes(9, 40 * KIB, 100 * KIB))).join();
            more.close().join();
            ByteBuffer back = ByteBuffer.allocate(140 * KIB);
            DirectReader r = client.lookup("/appended").join().reader();
            assertEquals(140 * KIB, r.read(back).join());
            back.flip();
            TestData.verify(back, 9, 0, "/appended");
        }
    }

    @Test
    void aSizeHintPicksTheSmallestClassThatHoldsIt() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(64L * MIB).servers(1, 0)
                .sizeClasses(16 * KIB, 64 * KIB));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            assertEquals(16 * KIB, firstBlockSize(client, "/hinted-10k", 10 * KIB));
            assertEquals(64 * KIB, firstBlockSize(client, "/hinted-20k", 20 * KIB));
            assertEquals(64 * KIB, firstBlockSize(client, "/unhinted", 0));
            assertEquals(MIB, firstBlockSize(client, "/hinted-200k", 200 * KIB));
        }
        try (Clusters.Running running = Clusters.start(b -> b.dram(64L * MIB).servers(1, 0)
                .sizeClasses(16 * KIB, 64 * KIB).set(NamenodeKeys.FIRST_BLOCK_SIZE, "0"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            assertEquals(MIB, firstBlockSize(client, "/off", 10 * KIB), "size classes off: whole blocks only");
        }
    }

    /**
     * A reader holding the location of a deleted small File's block, which now belongs to another
     * File, gets an error or the deleted File's own bytes, never the other's: as for whole blocks, on
     * the mapped same-host path and over TCP.
     */
    @ParameterizedTest(name = "local access {0}")
    @ValueSource(booleans = {true, false})
    void aStaleLocationOfASmallBlockNeverYieldsAnotherNodesBytes(boolean localAccess) throws Exception {
        int small = 64 * KIB;
        int smallBlocks = 64;
        // The size-class server has 64 blocks; no reuse delay, so A's block goes to one of the B files.
        try (Clusters.Running running = Clusters.start(b -> b.dram((long) smallBlocks * small).servers(1, 0)
                .sizeClasses(small).set(NamenodeKeys.REUSE_DELAY, "0ms"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf()
                     .with(LocalTierKeys.LOCAL_ACCESS, Boolean.toString(localAccess)))) {
            DirectWriter a = client.create("/a", NodeType.FILE).join().writer();
            a.write(ByteBuffer.wrap(TestData.bytes(1, 0, small))).join();
            a.close().join();
            CreelNode oldA = client.lookup("/a").join();
            BlockLocation aBlock = client.blockLocations(oldA, 0, small).join().get(0);
            assertEquals(small, aBlock.server().blockSize());
            ByteBuffer first = ByteBuffer.allocate(small);
            assertEquals(small, oldA.read(0, first).join()); // caches A's location
            client.delete("/a", false).join();

            boolean reused = false;
            for (int i = 0; i < smallBlocks && !reused; i++) {
                DirectWriter b = client.create("/b" + i, NodeType.FILE).join().writer();
                b.write(ByteBuffer.wrap(TestData.bytes(2, 0, small))).join();
                b.close().join();
                BlockLocation bBlock = client.blockLocations(client.lookup("/b" + i).join(), 0, small).join().get(0);
                reused = bBlock.server().address().equals(aBlock.server().address())
                        && bBlock.blockNumber() == aBlock.blockNumber();
            }
            assertTrue(reused, "a B file got A's old block");

            ByteBuffer again = ByteBuffer.allocate(small);
            try {
                int n = oldA.read(0, again).join();
                again.flip();
                TestData.verify(again, 1, 0, "read through a stale location (" + n + " bytes)");
                fail("a read of deleted /a whose block was reused should fail, but returned " + n + " bytes");
            } catch (CompletionException e) {
                ErrorCode code = CreelException.unwrap(e).code();
                assertTrue(code == ErrorCode.STALE_BLOCK || code == ErrorCode.NOT_FOUND,
                        "expected STALE_BLOCK or NOT_FOUND, got " + CreelException.unwrap(e));
            }
        }
    }

    @Test
    void aReplacedSmallValueIsSwappedWhole() throws Exception {
        int size = 12 * KIB;
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L * MIB).servers(1, 0).sizeClasses(16 * KIB));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/t", NodeType.TABLE).join();
            client.putValue("/t", "k", ByteBuffer.wrap(TestData.bytes(21, 0, size))).join();
            CreelNode old = client.lookup("/t/k").join();
            assertEquals(16 * KIB, client.blockLocations(old, 0, 1).join().get(0).server().blockSize());
            // A new version is written while the old one is readable; the commit swaps them at once.
            CreelNode next = client.create("/t/k", NodeType.KEYVALUE,
                    CreateOptions.defaults().withSizeHint(size)).join();
            DirectWriter w = next.writer();
            w.write(ByteBuffer.wrap(TestData.bytes(22, 0, size))).join();
            TestData.verify(client.getValue("/t", "k").join(), 21, 0, "the old value until the commit");
            w.close().join();
            TestData.verify(client.getValue("/t", "k").join(), 22, 0, "the new value after the commit");
            ByteBuffer viaOld = ByteBuffer.allocate(size);
            assertEquals(size, old.read(0, viaOld).join(), "a reader of the old version reads it whole");
            viaOld.flip();
            TestData.verify(viaOld, 21, 0, "the old version through its handle");
        }
    }

    @Test
    void aReplicatedSmallBlockHasCopiesOfItsSizeOnOtherHosts() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L * MIB).servers(2, 0).hosts(2)
                .sizeClasses(64 * KIB));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            CreelNode n = client.create("/copied", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            DirectWriter w = n.writer();
            w.write(ByteBuffer.wrap(TestData.bytes(3, 0, 50 * KIB))).join();
            w.close().join();
            BlockLocation b = client.blockLocations(client.lookup("/copied").join(), 0, 1).join().get(0);
            assertEquals(2, b.copyCount());
            List<String> hosts = new ArrayList<>();
            for (BlockLocation c : b.copies()) {
                assertEquals(64 * KIB, c.server().blockSize(), "every copy is of the block's size: " + b);
                hosts.add(c.server().host());
            }
            assertEquals(2, hosts.stream().distinct().count(), "copies on two hosts: " + hosts);
            ByteBuffer got = ByteBuffer.allocate(50 * KIB);
            client.lookup("/copied").join().read(0, got).join();
            got.flip();
            TestData.verify(got, 3, 0, "/copied");
        }
    }

    /** A decommissioned size-class server's copies are made again on a server of their size before it leaves. */
    @Test
    void theRepairCopiesASmallBlockToAServerOfItsSize() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(16L * MIB).servers(3, 0).hosts(3)
                .sizeClasses(64 * KIB).set("creel.storage.heartbeat.interval", "100ms")
                .set(NamenodeKeys.REUSE_DELAY, "200ms"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf()
                     .with(LocalTierKeys.LOCAL_ACCESS, "false"))) {
            CreelNode n = client.create("/repaired", NodeType.FILE, CreateOptions.defaults().withReplication(2)).join();
            DirectWriter w = n.writer();
            w.write(ByteBuffer.wrap(TestData.bytes(5, 0, 60 * KIB))).join();
            w.close().join();
            BlockLocation before = client.blockLocations(client.lookup("/repaired").join(), 0, 1).join().get(0);
            String leaving = before.server().address();
            assertEquals(64 * KIB, before.server().blockSize());
            client.decommission(leaving).join();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (client.status().join().stream().flatMap(r -> r.servers().stream())
                    .noneMatch(s -> s.server().address().equals(leaving) && s.state().equals("decommissioned"))) {
                assertTrue(System.nanoTime() < deadline, "the size-class server " + leaving + " is decommissioned");
                Thread.sleep(50);
            }
            try (CreelClient fresh = CreelClient.connect(running.cluster.clientConf()
                    .with(LocalTierKeys.LOCAL_ACCESS, "false"))) {
                BlockLocation after = fresh.blockLocations(fresh.lookup("/repaired").join(), 0, 1).join().get(0);
                assertEquals(2, after.copyCount(), "the factor is kept: " + after);
                for (BlockLocation c : after.copies()) {
                    assertEquals(64 * KIB, c.server().blockSize(), "a copy of the size of the block: " + after);
                    assertTrue(!c.server().address().equals(leaving), "no copy on the leaving server: " + after);
                }
                ByteBuffer got = ByteBuffer.allocate(60 * KIB);
                fresh.lookup("/repaired").join().read(0, got).join();
                got.flip();
                TestData.verify(got, 5, 0, "/repaired after the repair");
            }
        }
    }

    private static int firstBlockSize(CreelClient client, String path, long hint) {
        CreelNode n = client.create(path, NodeType.FILE, CreateOptions.defaults().withSizeHint(hint)).join();
        DirectWriter w = n.writer();
        w.write(ByteBuffer.wrap(TestData.bytes(4, 0, 5000))).join(); // more than is kept inline
        w.close().join();
        return client.blockLocations(client.lookup(path).join(), 0, 1).join().get(0).server().blockSize();
    }

    /** The bytes of the tier in use as {@code bin/creel report} counts them: used blocks times their size. */
    private static long usedBytes(List<StatusReply> statuses) {
        long used = 0;
        for (StatusReply status : statuses) {
            for (ServerStatus s : status.servers()) {
                used += s.usedBlocks() * s.server().blockSize();
            }
        }
        return used;
    }

    private static ByteBuffer filled(int size, long seed) {
        ByteBuffer b = ByteBuffer.allocate(size);
        TestData.fill(b, seed, 0);
        return b;
    }

    /** Runs {@code op(0..count-1)}, at most 64 at a time, and waits for all. */
    private static void inParallel(int count, IntFunction<CompletableFuture<?>> op) throws InterruptedException {
        Semaphore inFlight = new Semaphore(64);
        List<CompletableFuture<?>> all = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            inFlight.acquire();
            all.add(op.apply(i).whenComplete((v, e) -> inFlight.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }
}
