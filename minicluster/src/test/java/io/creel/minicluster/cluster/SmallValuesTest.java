package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.common.conf.ConfKeys;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.ServerStatus;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Small values cost about their size and one request (docs/architecture.md, "Small values"): a
 * KeyValue or File within {@code creel.namenode.inline.max} is kept by the namenode, put and got in
 * one request each with no block and no transfer, and moves to blocks when it outgrows the limit —
 * with the same guarantees as data in blocks.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SmallValuesTest {
    private static final int LIMIT = 4096;

    private static long usedBlocks(CreelClient c) {
        long used = 0;
        for (ServerStatus s : c.status().join().get(0).servers()) {
            used += s.usedBlocks() + s.pendingBlocks();
        }
        return used;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void aSmallPutAndGetAreOneRequestEachAndUseNoBlock() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20));
             RequestCounter counter = new RequestCounter(running.cluster.address());
             CreelClient c = CreelClient.connect(running.cluster.clientConf()
                     .with(ConfKeys.NAMENODE_ADDRESS, counter.address()))) {
            c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
            long blocks = usedBlocks(c);
            byte[] v = TestData.bytes(1, 0, 1024);
            counter.reset();
            c.putValue("/t", "k", ByteBuffer.wrap(v)).join();
            assertEquals(1, counter.count(Opcode.CREATE), "the value went with the create");
            assertEquals(1, counter.total(), "and nothing else: no MAP, no COMMIT");
            counter.reset();
            assertArrayEquals(v, bytes(c.getValue("/t", "k").join()));
            assertEquals(1, counter.count(Opcode.LOOKUP));
            assertEquals(1, counter.total(), "the value came with the lookup");
            assertEquals(blocks, usedBlocks(c), "no block holds a small value");

            CreelNode n = c.lookup("/t/k").join();
            assertTrue(n.isInline());
            assertTrue(c.blockLocations(n, 0, n.length()).join().isEmpty(), "an inline value has no block");
            ByteBuffer part = ByteBuffer.allocate(100);
            assertEquals(24, (int) n.read(1000, part).join(), "a read near the end stops at the end");
            TestData.verify(part.flip(), 1, 1000, "the value's last bytes");
            assertEquals(-1, (int) n.read(1024, ByteBuffer.allocate(1)).join());
        }
    }

    @Test
    void aValueOverTheLimitGoesToABlockAsBefore() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20));
             RequestCounter counter = new RequestCounter(running.cluster.address());
             CreelClient c = CreelClient.connect(running.cluster.clientConf()
                     .with(ConfKeys.NAMENODE_ADDRESS, counter.address()))) {
            c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
            c.putValue("/t", "small", ByteBuffer.wrap(new byte[10])).join(); // the client learns the limit
            long blocks = usedBlocks(c);
            byte[] v = TestData.bytes(2, 0, LIMIT + 1);
            counter.reset();
            c.putValue("/t", "big", ByteBuffer.wrap(v)).join();
            assertEquals(1, counter.count(Opcode.CREATE));
            assertEquals(1, counter.count(Opcode.COMMIT), "written to its block, then committed");
            assertEquals(blocks + 1, usedBlocks(c));
            assertArrayEquals(v, bytes(c.getValue("/t", "big").join()));
            assertFalse(c.lookup("/t/big").join().isInline());
        }
    }

    @Test
    void aSmallFileIsInlineUntilItOutgrowsTheLimitThenMovesToBlocks() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/d", NodeType.DIRECTORY).join();
            byte[] head = TestData.bytes(3, 0, 3000);
            CreelNode f = c.create("/d/f", NodeType.FILE).join();
            try (OutputStream out = f.outputStream()) {
                out.write(head);
            }
            long blocks = usedBlocks(c);
            CreelNode small = c.lookup("/d/f").join();
            assertTrue(small.isInline(), "3000 bytes stay in the namenode");
            assertEquals(3000, small.length());

            // An appender syncs a little more (still inline), then outgrows the limit.
            CreelNode a = c.openForAppend("/d/f").join();
            DirectWriter w = a.writer();
            byte[] more = TestData.bytes(3, 3000, 500);
            w.write(ByteBuffer.wrap(more)).join();
            assertEquals(3500, w.sync().join().length());
            assertTrue(c.lookup("/d/f").join().isInline(), "3500 bytes are still inline");
            byte[] rest = TestData.bytes(3, 3500, 10_000);
            w.write(ByteBuffer.wrap(rest)).join();
            assertEquals(13_500, w.close().join().length());

            CreelNode big = c.lookup("/d/f").join();
            assertFalse(big.isInline(), "13,500 bytes are in a block");
            assertEquals(blocks + 1, usedBlocks(c));
            ByteBuffer all = ByteBuffer.allocate(13_500);
            assertEquals(13_500, (int) big.read(0, all).join());
            TestData.verify(all.flip(), 3, 0, "the whole File, including what was inline");
            ByteBuffer old = ByteBuffer.allocate(3000);
            assertEquals(3000, (int) small.read(0, old).join());
            TestData.verify(old.flip(), 3, 0, "a reader opened before the growth reads what it saw");

            // A File that never grew keeps no block at all, even the one its create took.
            CreelNode g = c.create("/d/g", NodeType.FILE).join();
            g.writer().write(ByteBuffer.wrap(head)).join();
            g.writer().close().join();
            assertEquals(blocks + 1, usedBlocks(c));
        }
    }

    @Test
    void aClientThatLookedUpAFileWhileAnotherMovedItToBlocksAppendsAfterTheOtherGaveUp() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/d", NodeType.DIRECTORY).join();
            CreelNode f = c.create("/d/f", NodeType.FILE).join();
            f.writer().write(ByteBuffer.wrap(TestData.bytes(4, 0, 100))).join();
            f.writer().close().join();
            try (CreelClient other = CreelClient.connect(running.cluster.clientConf())) {
                DirectWriter spilling = other.openForAppend("/d/f").join().writer();
                spilling.write(ByteBuffer.wrap(TestData.bytes(9, 100, 2 * LIMIT))).join(); // in blocks, uncommitted
                assertEquals(100, c.lookup("/d/f").join().length(), "this client looks while the other writes");
            } // the other client goes without committing: its lease and its blocks go back

            CreelNode a = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (a == null) {
                try {
                    a = c.openForAppend("/d/f").join();
                } catch (java.util.concurrent.CompletionException e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(50); // the namenode has not yet seen the other client's connection close
                }
            }
            a.writer().write(ByteBuffer.wrap(TestData.bytes(4, 100, 2 * LIMIT))).join();
            assertEquals(100 + 2 * LIMIT, a.writer().close().join().length(),
                    "the blocks the other writer gave back are allocated anew, not taken from what this client saw");
            ByteBuffer all = ByteBuffer.allocate(100 + 2 * LIMIT);
            assertEquals(100 + 2 * LIMIT, (int) c.lookup("/d/f").join().read(0, all).join());
            TestData.verify(all.flip(), 4, 0, "the File");
        }
    }

    @Test
    void listingsAndBagsReadSmallFilesFromTheLookups() throws Exception {
        // A File takes its first block at its create (a large one needs it at once); a small one gives
        // it back at its close. 50 Files open at once hold 50 blocks for that while.
        try (Clusters.Running running = Clusters.start(b -> b.dram(64L << 20).disk(8L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/bag", NodeType.BAG).join();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            List<CompletableFuture<?>> writes = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                byte[] data = TestData.bytes(i, 0, 10 + i * 37);
                writes.add(c.create("/bag/part-" + (char) ('A' + i), NodeType.FILE).thenCompose(n -> {
                    n.writer().write(ByteBuffer.wrap(data));
                    return n.writer().close();
                }));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
            List<DirectoryEntry> listing = c.list("/bag").join();
            assertEquals(50, listing.size());
            for (DirectoryEntry e : listing) {
                int i = e.name().charAt("part-".length()) - 'A';
                assertArrayEquals(TestData.bytes(i, 0, 10 + i * 37), e.data(), "the listing brings the bytes");
                expected.write(e.data());
            }
            try (InputStream in = c.lookup("/bag").join().bagStream()) {
                assertArrayEquals(expected.toByteArray(), in.readAllBytes(), "the Bag reads as one stream");
            }
        }
    }

    @Test
    void withTheLimitAtZeroEverythingGoesToBlocks() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20)
                .set("creel.namenode.inline.max", "0"));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
            long blocks = usedBlocks(c);
            byte[] v = TestData.bytes(5, 0, 100);
            c.putValue("/t", "k", ByteBuffer.wrap(v)).join(); // offered inline (the limit is not known yet), refused
            c.putValue("/t", "k2", ByteBuffer.wrap(v)).join();
            assertArrayEquals(v, bytes(c.getValue("/t", "k").join()));
            assertArrayEquals(v, bytes(c.getValue("/t", "k2").join()));
            assertFalse(c.lookup("/t/k").join().isInline());
            assertEquals(blocks + 2, usedBlocks(c));
        }
    }

    @Test
    void readersSeeOneWholeValueWhileItFlipsBetweenInlineAndBlocks() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L << 20).disk(8L << 20)
                .set("creel.block.size", "64k").set("creel.namenode.reuse.delay", "200ms"));
             CreelClient writer = CreelClient.connect(running.cluster.clientConf());
             CreelClient reader = CreelClient.connect(running.cluster.clientConf())) {
            writer.create("/t", NodeType.TABLE).join();
            writer.putValue("/t", "k", ByteBuffer.wrap(version(0))).join();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread readers = new Thread(() -> {
                int last = 0;
                try {
                    while (!stop.get()) {
                        byte[] v = bytes(reader.getValue("/t", "k").get(30, TimeUnit.SECONDS));
                        int version = checkWhole(v);
                        if (version < last) {
                            throw new AssertionError("version " + version + " read after version " + last);
                        }
                        last = version;
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "small-values-reader");
            readers.start();
            for (int i = 1; i <= 300; i++) {
                writer.putValue("/t", "k", ByteBuffer.wrap(version(i))).get(30, TimeUnit.SECONDS);
            }
            stop.set(true);
            readers.join(60_000);
            if (failure.get() != null) {
                throw new AssertionError("a reader saw a torn, stale or foreign value", failure.get());
            }
            assertEquals(300, checkWhole(bytes(reader.getValue("/t", "k").join())));
        }
    }

    /** Version {@code i} of a value: inline (a few hundred bytes) or in a block (tens of KiB), every byte naming it. */
    private static byte[] version(int i) {
        byte[] b = new byte[i % 3 == 0 ? 20_000 + i : 100 + i];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (i ^ (k * 7));
        }
        b[0] = (byte) (i >>> 8);
        b[1] = (byte) i;
        return b;
    }

    /** The version a value claims to be, checking that every byte of it agrees. */
    private static int checkWhole(byte[] v) {
        int i = (v[0] & 0xff) << 8 | (v[1] & 0xff);
        assertArrayEquals(version(i), v, "value of version " + i);
        return i;
    }
}
