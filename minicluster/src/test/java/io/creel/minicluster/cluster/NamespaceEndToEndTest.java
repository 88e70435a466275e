package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Namespace semantics through the real client, namenode and storage servers. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NamespaceEndToEndTest {
    private static Clusters.Running running;
    private static CreelClient client;

    @BeforeAll
    static void start() {
        // Small blocks: every File and KeyValue with data holds at least one block.
        running = Clusters.start(b -> b.dram(64L << 20).disk(64L << 20).set("creel.block.size", "64k"));
        client = CreelClient.connect(running.cluster.clientConf());
    }

    @AfterAll
    static void stop() {
        client.close();
        running.close();
    }

    private static ErrorCode failure(Supplier<CompletableFuture<?>> op) {
        CompletionException e = assertThrows(CompletionException.class, () -> op.get().join());
        return CreelException.unwrap(e).code();
    }

    private static Set<String> names(String dir) {
        return client.list(dir).join().stream().map(DirectoryEntry::name).collect(Collectors.toSet());
    }

    @Test
    void theSameClientAppendsToAFileClosedEmptyOrEndingBeforeABlockItHadAllocatedAhead() throws Exception {
        client.create("/trimmed", NodeType.DIRECTORY).join();
        // Closed empty: the eager first block is freed; an append must get a new one from the namenode.
        client.create("/trimmed/empty", NodeType.FILE).join().writer().close().join();
        byte[] a = new byte[300];
        java.util.Arrays.fill(a, (byte) 7);
        try (java.io.OutputStream out = client.openForAppend("/trimmed/empty").join().outputStream()) {
            out.write(a);
        }
        try (java.io.InputStream in = client.lookup("/trimmed/empty").join().inputStream()) {
            org.junit.jupiter.api.Assertions.assertArrayEquals(a, in.readAllBytes());
        }
        // Ends just past half a block: the next block was allocated ahead, then freed by close.
        byte[] b = new byte[(64 << 10) - 100];
        java.util.Arrays.fill(b, (byte) 3);
        var f = client.create("/trimmed/ahead", NodeType.FILE).join();
        f.writer().write(ByteBuffer.wrap(b)).join();
        f.writer().close().join();
        byte[] c = new byte[1000];
        java.util.Arrays.fill(c, (byte) 5);
        try (java.io.OutputStream out = client.openForAppend("/trimmed/ahead").join().outputStream()) {
            out.write(c);
        }
        try (java.io.InputStream in = client.lookup("/trimmed/ahead").join().inputStream()) {
            byte[] all = in.readAllBytes();
            assertEquals(b.length + c.length, all.length);
            assertEquals(3, all[b.length - 1]);
            assertEquals(5, all[b.length]);
            assertEquals(5, all[all.length - 1]);
        }
    }

    @Test
    void everyReturnedCreateAndDeleteIsVisibleInTheNextListing() {
        client.create("/listing", NodeType.DIRECTORY).join();
        List<CompletableFuture<?>> creates = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int n = i;
            creates.add(client.create("/listing/f" + n, NodeType.FILE)
                    .thenCompose(node -> node.writer().close())
                    .thenCompose(v -> client.list("/listing"))
                    .thenAccept(list -> assertTrue(list.stream().anyMatch(e -> e.name().equals("f" + n)),
                            "f" + n + " missing from a listing taken after its create returned")));
        }
        CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new)).join();
        assertEquals(300, names("/listing").size());
        for (int i = 0; i < 300; i += 2) {
            client.delete("/listing/f" + i, false).join();
            assertFalse(names("/listing").contains("f" + i), "f" + i + " still listed after its delete returned");
        }
        assertEquals(150, names("/listing").size());
        // Freed slots are reused for new names; the listing stays exact.
        for (int i = 0; i < 50; i++) {
            client.create("/listing/g" + i, NodeType.FILE).thenCompose(n -> n.writer().close()).join();
        }
        assertEquals(200, names("/listing").size());
    }

    @Test
    void moveIsAtomicAndKeepsTheData() {
        client.create("/mv", NodeType.DIRECTORY).join();
        client.create("/mv/a", NodeType.DIRECTORY).join();
        client.create("/mv/b", NodeType.BAG).join();
        var file = client.create("/mv/a/data", NodeType.FILE).join();
        file.writer().write(ByteBuffer.wrap("payload".getBytes())).join();
        file.writer().close().join();

        client.move("/mv/a/data", "/mv/b/part-0").join();
        assertEquals(Set.of("part-0"), names("/mv/b"));
        assertEquals(Set.of(), names("/mv/a"));
        assertEquals(ErrorCode.NOT_FOUND, failure(() -> client.lookup("/mv/a/data")));
        ByteBuffer got = ByteBuffer.allocate(7);
        client.lookup("/mv/b/part-0").join().reader().read(got).join();
        assertEquals("payload", new String(got.array()));

        assertEquals(ErrorCode.INVALID_PARENT, failure(() -> client.move("/mv/a", "/mv/b/dir")),
                "a Bag holds Files only");
        assertEquals(ErrorCode.UNSUPPORTED, failure(() -> client.move("/mv/a", "/mv/a/inner")),
                "a directory cannot move into itself");
        client.create("/mv/c", NodeType.FILE).thenCompose(n -> n.writer().close()).join();
        assertEquals(ErrorCode.ALREADY_EXISTS, failure(() -> client.move("/mv/b/part-0", "/mv/c")));
        client.move("/mv/a", "/mv/renamed").join();
        assertTrue(names("/mv").containsAll(Set.of("renamed", "b", "c")));
        assertFalse(names("/mv").contains("a"));
    }

    @Test
    void deleteOfContainersNeedsRecursive() {
        client.create("/del", NodeType.DIRECTORY).join();
        client.create("/del/t", NodeType.TABLE).join();
        client.putValue("/del/t", "k", ByteBuffer.wrap(new byte[] {1})).join();
        assertEquals(ErrorCode.NOT_EMPTY, failure(() -> client.delete("/del", false)));
        client.delete("/del", true).join();
        assertEquals(ErrorCode.NOT_FOUND, failure(() -> client.lookup("/del/t/k")));
        assertEquals(ErrorCode.NOT_FOUND, failure(() -> client.lookup("/del")));
    }

    @Test
    void typeRulesAreEnforcedEndToEnd() {
        client.create("/rules", NodeType.DIRECTORY).join();
        client.create("/rules/f", NodeType.FILE).thenCompose(n -> n.writer().close()).join();
        assertEquals(ErrorCode.ALREADY_EXISTS, failure(() -> client.create("/rules/f", NodeType.FILE)),
                "first create of a File wins");
        assertEquals(ErrorCode.INVALID_PARENT, failure(() -> client.create("/rules/kv", NodeType.KEYVALUE)),
                "a KeyValue lives only in a Table");
        client.create("/rules/bag", NodeType.BAG).join();
        assertEquals(ErrorCode.INVALID_PARENT, failure(() -> client.create("/rules/bag/t", NodeType.TABLE)));
        assertEquals(ErrorCode.NOT_FOUND, failure(() -> client.create("/rules/missing/x", NodeType.FILE)));
        assertEquals(ErrorCode.INVALID_NAME, failure(() -> client.create("/rules/" + "n".repeat(256), NodeType.FILE)));

        client.create("/rules/fast", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
        client.putValue("/rules/fast", "k", ByteBuffer.wrap("v".getBytes())).join();
        assertEquals(1, client.getValue("/rules/fast", "k").join().remaining());
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(() -> client.list("/rules/fast")),
                "a non-enumerable Table cannot be listed");
    }

    @Test
    void aSecondWriterOfAFileIsRefusedUntilTheFirstCloses() {
        client.create("/lease", NodeType.DIRECTORY).join();
        var first = client.create("/lease/f", NodeType.FILE).join();
        first.writer().write(ByteBuffer.wrap(new byte[] {1, 2, 3})).join();
        try (CreelClient other = CreelClient.connect(running.cluster.clientConf())) {
            assertEquals(ErrorCode.LEASE_CONFLICT, failure(() -> other.openForAppend("/lease/f")));
            first.writer().close().join();
            var again = other.openForAppend("/lease/f").join();
            again.writer().write(ByteBuffer.wrap(new byte[] {4, 5})).join();
            again.writer().close().join();
        }
        ByteBuffer all = ByteBuffer.allocate(5);
        client.lookup("/lease/f").join().reader().read(all).join();
        assertEquals("[1, 2, 3, 4, 5]", java.util.Arrays.toString(all.array()), "append continued the File");
    }
}
