package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.common.namespace.NodeType;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A Bag of 10,000 Files reads as one stream: every file's bytes, whole, in listing order. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BagStreamTest {
    private static final int FILES = 10_000;

    private static byte[] content(int i) {
        return TestData.bytes(i, 0, 20 + i % 150);
    }

    @Test
    void tenThousandFilesReadAsOneStream() throws Exception {
        // Each file holds at least one block, so 16 KiB blocks keep 10,000 small files within 256 MiB.
        try (Clusters.Running running = Clusters.start(b -> b.dram(128L << 20).disk(256L << 20)
                .set("creel.block.size", "16k")
                .set("creel.client.bag.reads.in.flight", "16"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/shuffle", NodeType.DIRECTORY).join();
            client.create("/shuffle/bag", NodeType.BAG).join();
            Semaphore inFlight = new Semaphore(128);
            List<CompletableFuture<?>> writes = new ArrayList<>();
            for (int i = 0; i < FILES; i++) {
                inFlight.acquire();
                byte[] data = content(i);
                writes.add(client.create("/shuffle/bag/part-" + i, NodeType.FILE)
                        .thenCompose(node -> {
                            node.writer().write(ByteBuffer.wrap(data));
                            return node.writer().close();
                        })
                        .whenComplete((v, e) -> inFlight.release()));
            }
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);

            List<DirectoryEntry> listing = client.list("/shuffle/bag").join();
            assertEquals(FILES, listing.size());
            Set<String> names = new HashSet<>();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (DirectoryEntry e : listing) {
                names.add(e.name());
                expected.write(content(Integer.parseInt(e.name().substring("part-".length()))));
            }
            assertEquals(FILES, names.size());

            ByteArrayOutputStream actual = new ByteArrayOutputStream();
            try (InputStream in = client.lookup("/shuffle/bag").join().bagStream()) {
                in.transferTo(actual);
            }
            assertEquals(expected.size(), actual.size());
            assertArrayEquals(expected.toByteArray(), actual.toByteArray(), "bag stream = files in listing order");
        }
    }
}
