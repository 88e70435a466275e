package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Opcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link DirectWriter#syncAll}: a task appending to many Files publishes them all with one request
 * per namenode partition, inline Files sending only what they added, Files in blocks their length;
 * a writer whose sync fails fails alone.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BatchedSyncTest {
    private static byte[] read(CreelClient c, String path) {
        CreelNode n = c.lookup(path).join();
        ByteBuffer b = ByteBuffer.allocate((int) n.length());
        while (b.hasRemaining()) {
            n.read(b.position(), b).join();
        }
        return b.array();
    }

    @Test
    void manyWritersArePublishedInOneRequest() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L << 20));
             RequestCounter counter = new RequestCounter(running.cluster.address());
             CreelClient c = CreelClient.connect(running.cluster.clientConf()
                     .with(ConfKeys.NAMENODE_ADDRESS, counter.address()))) {
            c.create("/p", NodeType.DIRECTORY).join();
            List<DirectWriter> writers = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                writers.add(c.create("/p/f" + i, NodeType.FILE).join().writer());
            }
            byte[] big = TestData.bytes(7, 0, 10_000); // past the inline limit: this one goes to blocks
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < writers.size(); i++) {
                    byte[] part = i == 0 ? big : TestData.bytes(i, round * 100, 100);
                    writers.get(i).write(ByteBuffer.wrap(part)).join();
                }
                counter.reset();
                DirectWriter.syncAll(writers).join();
                assertEquals(1, counter.count(Opcode.SYNC_MANY), "one request for the 40 Files");
                assertEquals(0, counter.count(Opcode.COMMIT));
            }
            for (int i = 1; i < writers.size(); i++) {
                byte[] expected = new byte[300];
                for (int round = 0; round < 3; round++) {
                    System.arraycopy(TestData.bytes(i, round * 100, 100), 0, expected, round * 100, 100);
                }
                assertArrayEquals(expected, read(c, "/p/f" + i), "each sync appended its round's bytes once");
                assertTrue(c.lookup("/p/f" + i).join().isInline());
            }
            byte[] all = read(c, "/p/f0");
            assertEquals(30_000, all.length);
            for (int round = 0; round < 3; round++) {
                assertArrayEquals(big, java.util.Arrays.copyOfRange(all, round * 10_000, (round + 1) * 10_000));
            }
            for (DirectWriter w : writers) {
                w.close().join();
            }
        }
    }

    private static long usedBlocks(CreelClient c) {
        long used = 0;
        for (io.creel.common.protocol.ServerStatus s : c.status().join().get(0).servers()) {
            used += s.usedBlocks() + s.pendingBlocks();
        }
        return used;
    }

    @Test
    void filesWithBlocksOnDemandKeptInlineHoldNoBlockAndMayOutgrowTheLimit() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/p", NodeType.DIRECTORY).join();
            c.create("/p/first", NodeType.DIRECTORY).join(); // the directory's records block exists
            long before = usedBlocks(c);
            List<DirectWriter> writers = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                DirectWriter w = c.create("/p/f" + i, NodeType.FILE,
                        io.creel.client.CreateOptions.defaults().withBlocksOnDemand(true)).join().writer();
                w.write(ByteBuffer.wrap(TestData.bytes(i, 0, 1000))).join();
                writers.add(w);
            }
            DirectWriter.syncAll(writers).join();
            assertEquals(before, usedBlocks(c), "Files created with blocks on demand and kept inline hold no block");
            // One File outgrows the inline limit after its inline sync: its bytes move to a new block 0.
            DirectWriter grows = writers.get(0);
            grows.write(ByteBuffer.wrap(TestData.bytes(0, 1000, 9000))).join();
            DirectWriter.syncAll(writers).join();
            assertArrayEquals(TestData.bytes(0, 0, 10_000), read(c, "/p/f0"));
            assertTrue(!c.lookup("/p/f0").join().isInline());
            assertEquals(before + 1, usedBlocks(c), "one block for the File that outgrew the limit");
            for (DirectWriter w : writers) {
                w.close().join();
            }
            assertArrayEquals(TestData.bytes(7, 0, 1000), read(c, "/p/f7"));
        }
    }

    @Test
    void aWriterWhoseSyncFailsFailsAlone() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/p", NodeType.DIRECTORY).join();
            DirectWriter kept = c.create("/p/kept", NodeType.FILE).join().writer();
            DirectWriter removed = c.create("/p/removed", NodeType.FILE).join().writer();
            kept.write(ByteBuffer.wrap(new byte[] {1, 2})).join();
            removed.write(ByteBuffer.wrap(new byte[] {3})).join();
            c.delete("/p/removed", false).join();
            CompletionException e = assertThrows(CompletionException.class,
                    () -> DirectWriter.syncAll(List.of(kept, removed)).join());
            CreelException cause = CreelException.unwrap(e);
            assertEquals(ErrorCode.NOT_FOUND, cause.code());
            assertTrue(cause.getMessage().startsWith("/p/removed"), cause.getMessage());
            assertArrayEquals(new byte[] {1, 2}, read(c, "/p/kept"), "the other writer's sync was applied");
            kept.write(ByteBuffer.wrap(new byte[] {4})).join();
            kept.close().join();
            assertArrayEquals(new byte[] {1, 2, 4}, read(c, "/p/kept"));
            assertThrows(CompletionException.class, () -> removed.write(ByteBuffer.wrap(new byte[] {5})).join(),
                    "a writer whose sync failed only fails from then on");
        }
    }
}
