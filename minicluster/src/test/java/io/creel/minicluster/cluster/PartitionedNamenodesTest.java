package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.StableHash;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two hash-partitioned namenodes over shared storage servers: top-level names are spread by the
 * stable hash, listing "/" merges them, and capacity follows demand — all data under one top-level
 * name fills the whole cluster, and once freed, the other partition can fill it in turn.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PartitionedNamenodesTest {
    private static final int MIB = 1 << 20;

    /** A top-level name that the stable hash puts on {@code partition} of 2. */
    private static String nameOn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            if (StableHash.partition(prefix + i, 2) == partition) {
                return prefix + i;
            }
        }
    }

    @Test
    void oneBusyPartitionFillsTheWholeClusterAndGivesItBackWhenIdle() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.namenodes(2).servers(2, 1).dram(16L * MIB)
                .disk(16L * MIB).set("creel.storage.region.size", "4m").set("creel.namenode.region.idle", "300ms")
                .set("creel.namenode.reuse.delay", "0ms"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            String a = "/" + nameOn(0, "busy");
            String b = "/" + nameOn(1, "other");
            long total = 48; // blocks in the cluster

            long written = fill(client, a);
            assertTrue(written >= total - 2, "partition 0 alone should fill the cluster, wrote " + written + " MiB");
            long[] used = usedBlocks(client);
            assertTrue(used[0] >= total - 1 && used[1] <= 1, "blocks held per namenode: " + used[0] + ", " + used[1]);

            client.delete(a, false).join();
            Thread.sleep(1500); // the busy namenode gives its empty regions back after the idle time
            long writtenB = fill(client, b);
            // Partition 0 keeps the one region holding its root directory's records (4 blocks).
            assertTrue(writtenB >= total - 4 - 1, "partition 1 should then fill the cluster, wrote " + writtenB + " MiB");
        }
    }

    @Test
    void listingTheRootMergesPartitionsAndOnePartitionNeverWaitsForAnother() {
        try (Clusters.Running running = Clusters.start(b -> b.namenodes(2).dram(32L * MIB).disk(32L * MIB)
                .set("creel.client.request.timeout", "5s").set("creel.client.connect.timeout", "2s"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            String a = nameOn(0, "left");
            String b = nameOn(1, "right");
            client.create("/" + a, NodeType.DIRECTORY).join();
            client.create("/" + b, NodeType.DIRECTORY).join();
            assertEquals(Set.of(a, b), client.list("/").join().stream().map(DirectoryEntry::name)
                    .collect(Collectors.toSet()));
            CompletionException cross = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> client.move("/" + a, "/" + b + "/x").join());
            assertEquals(ErrorCode.UNSUPPORTED, CreelException.unwrap(cross).code());

            // Partition 1's namenode goes away: partition 0 keeps working.
            running.cluster.namenodes().get(1).close();
            var f = client.create("/" + a + "/still-works", NodeType.FILE).join();
            f.writer().write(ByteBuffer.wrap("ok".getBytes())).join();
            f.writer().close().join();
            assertEquals(2, client.lookup("/" + a + "/still-works").join().length());
            CompletionException down = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> client.lookup("/" + b).join());
            assertNotEquals(ErrorCode.NOT_FOUND, CreelException.unwrap(down).code(), "an unreachable partition is not "
                    + "an empty one");
        }
    }

    /** Appends 1 MiB to a new File until the cluster is out of space; returns the MiB it keeps. */
    private static long fill(CreelClient client, String path) {
        DirectWriter w = client.create(path, NodeType.FILE).join().writer();
        ByteBuffer mib = ByteBuffer.allocate(MIB);
        long n = 0;
        try {
            while (n < 1000) {
                w.write(mib.clear()).join();
                w.sync().join(); // published, so the blocks stay the file's after the failed write
                n++;
            }
        } catch (CompletionException e) {
            assertEquals(ErrorCode.OUT_OF_SPACE, CreelException.unwrap(e).code(), String.valueOf(e));
        }
        w.close().exceptionally(t -> null).join();
        return n;
    }

    private static long[] usedBlocks(CreelClient client) {
        List<StatusReply> status = client.status().join();
        long[] used = new long[status.size()];
        for (int i = 0; i < status.size(); i++) {
            for (ServerStatus s : status.get(i).servers()) {
                used[i] += s.usedBlocks();
            }
        }
        return used;
    }
}
