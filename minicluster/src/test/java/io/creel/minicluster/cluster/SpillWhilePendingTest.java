package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.namenode.NamenodeKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9, fault 3: DRAM full of blocks waiting out the reuse delay, the disk tier empty, and
 * several writers at once. A class with nothing free now is full for this allocation, so creates
 * and writes spill into disk instead of failing — also while concurrent writers take each region
 * of disk as soon as it is granted; {@code creel report} shows the DRAM blocks as pending.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SpillWhilePendingTest {
    private static final int BLOCK = 64 << 10;
    private static final int DRAM_BLOCKS = 64;
    private static final int WRITERS = 40;

    @Test
    void allocationSpillsPastAClassWhoseBlocksAreAllWaitingOutTheReuseDelay() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(1, 1).dram((long) DRAM_BLOCKS * BLOCK)
                .disk(256L * BLOCK).set("creel.block.size", "64k").set("creel.storage.region.size", "256k")
                .set(NamenodeKeys.REUSE_DELAY, "10m"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            // Fill DRAM (the root's records take one block), then free it all: every block is pending.
            client.create("/fill", NodeType.FILE).join();
            client.delete("/fill", false).join();
            for (int i = 0; i < DRAM_BLOCKS - 1; i++) {
                writeFile(client, "/f" + i, BLOCK, i);
            }
            assertEquals("dram", tierOf(client, "/f0"));
            for (int i = 0; i < DRAM_BLOCKS - 1; i++) {
                client.delete("/f" + i, false).join();
            }
            ServerStatus dram = server(client.status().join().get(0), "dram");
            assertEquals(0, dram.freeBlocks(), "nothing in DRAM is free now: " + dram);
            assertTrue(dram.pendingBlocks() >= DRAM_BLOCKS - 2, "DRAM blocks wait out the reuse delay: " + dram);

            // Several writers at once, two blocks each: regions of 4 blocks are taken as soon as granted.
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int i = 0; i < WRITERS; i++) {
                writers.add(writeFileAsync(client, "/spilled" + i, BLOCK + 100, 100 + i));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).join();
            for (int i = 0; i < WRITERS; i++) {
                assertEquals("disk", tierOf(client, "/spilled" + i));
                CreelNode back = client.lookup("/spilled" + i).join();
                ByteBuffer all = ByteBuffer.allocate(BLOCK + 100);
                assertEquals(BLOCK + 100, (int) back.read(0, all).join());
                TestData.verify(all.flip(), 100 + i, 0, "/spilled" + i);
            }

            StringWriter report = new StringWriter();
            new picocli.CommandLine(new io.creel.cli.ReportCommand()).setOut(new PrintWriter(report))
                    .execute("--conf", "creel.namenode.address=" + running.cluster.address().toUri());
            String text = report.toString();
            assertTrue(text.contains("PENDING"), text);
            String dramLine = text.lines().filter(l -> l.contains(" dram ") && l.contains(" live "))
                    .findFirst().orElseThrow(() -> new AssertionError("no dram server line in\n" + text));
            String pending = io.creel.common.conf.ConfValues.formatSize(dram.pendingBlocks() * BLOCK);
            assertTrue(dramLine.trim().endsWith(pending), "the DRAM line ends with its pending " + pending + ":\n" + text);
        }
    }

    private static CompletableFuture<Void> writeFileAsync(CreelClient client, String path, int bytes, long seed) {
        ByteBuffer b = ByteBuffer.allocate(bytes);
        TestData.fill(b, seed, 0);
        return client.create(path, NodeType.FILE).thenCompose(f -> f.writer().write(b)
                .thenCompose(v -> f.writer().close())).thenApply(info -> null);
    }

    private static void writeFile(CreelClient client, String path, int bytes, long seed) {
        CreelNode f = client.create(path, NodeType.FILE).join();
        ByteBuffer b = ByteBuffer.allocate(bytes);
        TestData.fill(b, seed, 0);
        f.writer().write(b).join();
        f.writer().close().join();
    }

    private static String tierOf(CreelClient client, String path) {
        CreelNode n = client.lookup(path).join();
        List<BlockLocation> blocks = client.blockLocations(n, 0, n.length()).join();
        return blocks.get(blocks.size() - 1).server().tier();
    }

    private static ServerStatus server(StatusReply status, String tier) {
        return status.servers().stream().filter(s -> s.server().tier().equals(tier)).findFirst().orElseThrow();
    }
}
