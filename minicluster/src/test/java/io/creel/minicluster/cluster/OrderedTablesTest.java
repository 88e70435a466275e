package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.TableEntry;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.StableHash;
import io.creel.common.protocol.Opcode;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ordered Tables end to end: a scan reads keys in order from a start key, with values kept inline
 * in its replies and the others read from their blocks; a scan of small records is one request;
 * long scans page; each Table is scanned on the namenode partition that holds it; a namenode
 * restart keeps a Table ordered; bad scans fail with errors naming what is wrong.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OrderedTablesTest {
    private static final CreateOptions ORDERED = CreateOptions.defaults().withEnumerable(false).withOrdered(true);

    private static String key(int i) {
        return String.format("user%05d", i);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static ErrorCode code(Runnable r) {
        CompletionException e = assertThrows(CompletionException.class, r::run);
        return CreelException.unwrap(e).code();
    }

    @Test
    void aScanOfSmallRecordsIsOneRequestAndLargerValuesAreReadFromTheirBlocks() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(16L << 20).disk(16L << 20)
                .set("creel.namenode.inline.max", "2k"));
             RequestCounter counter = new RequestCounter(running.cluster.address());
             CreelClient c = CreelClient.connect(running.cluster.clientConf()
                     .with(ConfKeys.NAMENODE_ADDRESS, counter.address()))) {
            c.create("/t", NodeType.TABLE, ORDERED).join();
            for (int i = 99; i >= 0; i--) {
                int size = i % 10 == 3 ? 5000 : 1000; // every tenth value is too large to keep inline
                c.putValue("/t", key(i), ByteBuffer.wrap(TestData.bytes(i, 0, size))).join();
            }
            counter.reset();
            List<DirectoryEntry> page = c.scan("/t", key(40), 5).join();
            assertEquals(List.of(key(40), key(41), key(42), key(43), key(44)),
                    page.stream().map(DirectoryEntry::name).toList());
            assertEquals(1, counter.total(), "one SCAN request for five keys");
            assertNotNull(page.get(0).data());
            assertNull(page.get(3).data(), key(43) + " is in a block");
            assertEquals("/t/" + key(43), page.get(3).path());

            try (CreelClient reader = CreelClient.connect(running.cluster.clientConf()
                    .with(ConfKeys.NAMENODE_ADDRESS, counter.address()))) { // no block locations cached
                counter.reset();
                List<TableEntry> values = reader.scanValues("/t", key(10), 10).join();
                assertEquals(1, counter.count(Opcode.SCAN));
                for (int j = 0; j < 10; j++) {
                    int i = 10 + j;
                    assertEquals(key(i), values.get(j).key());
                    assertArrayEquals(TestData.bytes(i, 0, i % 10 == 3 ? 5000 : 1000), bytes(values.get(j).value()),
                            key(i));
                }
                assertEquals(1, counter.count(Opcode.LOCATE) + counter.count(Opcode.MAP), "the one value in a block "
                        + "was located (and read from its server); the others came with the scan");
                assertEquals(2, counter.total());
            }

            counter.reset();
            assertEquals(List.of(key(98), key(99)), c.scan("/t", key(98), 10).join().stream()
                    .map(DirectoryEntry::name).toList(), "the scan ends with the Table");
            assertEquals(List.of(), c.scan("/t", "zzz", 10).join());
        }
    }

    @Test
    void aLongScanPagesThroughEveryKeyInOrderWithReplacementsAndRemovalsApplied() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(16L << 20).disk(16L << 20));
             RequestCounter counter = new RequestCounter(running.cluster.address());
             CreelClient c = CreelClient.connect(running.cluster.clientConf()
                     .with(ConfKeys.NAMENODE_ADDRESS, counter.address()))) {
            c.create("/t", NodeType.TABLE, ORDERED).join();
            List<java.util.concurrent.CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 2499; i >= 0; i--) {
                puts.add(c.putValue("/t", key(i), ByteBuffer.wrap(TestData.bytes(i, 0, 100))));
            }
            puts.forEach(java.util.concurrent.CompletableFuture::join);
            c.putValue("/t", key(7), ByteBuffer.wrap(new byte[] {7})).join();
            c.delete("/t/" + key(8), false).join();
            counter.reset();
            List<TableEntry> all = c.scanValues("/t", "", 3000).join();
            assertEquals(3, counter.count(Opcode.SCAN), "1000 keys per request at most");
            assertEquals(2499, all.size());
            for (int k = 1; k < all.size(); k++) {
                assertTrue(all.get(k - 1).key().compareTo(all.get(k).key()) < 0, "in order at " + k);
            }
            assertEquals(key(9), all.get(8).key(), key(8) + " was removed");
            assertArrayEquals(new byte[] {7}, bytes(all.get(7).value()), "the replacement's value");
            assertEquals(1500, c.scan("/t", key(1000), 1500).join().size());
        }
    }

    @Test
    void eachTableIsScannedOnThePartitionThatHoldsIt() {
        try (Clusters.Running running = Clusters.start(b -> b.namenodes(2).dram(16L << 20).disk(16L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            String[] tables = new String[2];
            for (int partition = 0; partition < 2; partition++) {
                for (int i = 0; tables[partition] == null; i++) {
                    if (StableHash.partition("top" + i, 2) == partition) {
                        tables[partition] = "/top" + i;
                    }
                }
                c.create(tables[partition], NodeType.DIRECTORY).join();
                c.create(tables[partition] + "/t", NodeType.TABLE, ORDERED).join();
                for (int i = 0; i < 20; i++) {
                    c.putValue(tables[partition] + "/t", key(i * 2 + partition), ByteBuffer.wrap(new byte[] {
                            (byte) partition})).join();
                }
            }
            for (int partition = 0; partition < 2; partition++) {
                List<TableEntry> got = c.scanValues(tables[partition] + "/t", "", 100).join();
                assertEquals(20, got.size());
                for (int i = 0; i < 20; i++) {
                    assertEquals(key(i * 2 + partition), got.get(i).key());
                    assertArrayEquals(new byte[] {(byte) partition}, bytes(got.get(i).value()));
                }
            }
        }
    }

    @Test
    void aNamenodeRestartKeepsATableOrderedAndAnotherUnordered() throws Exception {
        Path logDir = Files.createTempDirectory("creel-ordered-log-");
        try (Clusters.Running running = Clusters.start(b -> b.dram(16L << 20).disk(16L << 20)
                .set("creel.namenode.log.dir", logDir.toString()))) {
            try (CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
                c.create("/o", NodeType.TABLE, ORDERED).join();
                c.create("/u", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
                for (int i = 9; i >= 0; i--) {
                    c.putValue("/o", key(i), ByteBuffer.wrap(new byte[] {(byte) i})).join();
                    c.putValue("/u", key(i), ByteBuffer.wrap(new byte[] {(byte) i})).join();
                }
            }
            running.cluster.restartNamenode();
            try (CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
                List<TableEntry> got = c.scanValues("/o", key(3), 4).join();
                assertEquals(List.of(key(3), key(4), key(5), key(6)), got.stream().map(TableEntry::key).toList());
                assertArrayEquals(new byte[] {5}, bytes(got.get(2).value()));
                assertEquals(ErrorCode.INVALID_ARGUMENT, code(() -> c.scan("/u", "", 4).join()));
            }
        } finally {
            Clusters.delete(logDir);
        }
    }

    @Test
    void badScansFailWithErrorsThatSayWhatIsWrong() {
        try (Clusters.Running running = Clusters.start(b -> b.dram(16L << 20).disk(16L << 20));
             CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/plain", NodeType.TABLE).join();
            c.create("/t", NodeType.TABLE, ORDERED).join();
            CompletionException unordered = assertThrows(CompletionException.class, () -> c.scan("/plain", "", 1).join());
            assertEquals(ErrorCode.INVALID_ARGUMENT, CreelException.unwrap(unordered).code());
            assertTrue(unordered.getCause().getMessage().contains("/plain")
                    && unordered.getCause().getMessage().contains("create it ordered"), unordered.getMessage());
            assertEquals(ErrorCode.INVALID_ARGUMENT, code(() -> c.scan("/t", "", 0).join()));
            assertEquals(ErrorCode.INVALID_ARGUMENT, code(() -> c.scan("/t", "", -5).join()));
            assertEquals(ErrorCode.INVALID_ARGUMENT, code(() -> c.scan("/", "", 5).join()));
            assertEquals(ErrorCode.INVALID_NAME, code(() -> c.scan("/t", "a/b", 5).join()));
            assertEquals(ErrorCode.NOT_FOUND, code(() -> c.scan("/missing", "", 5).join()));
            assertEquals(ErrorCode.INVALID_ARGUMENT, code(() -> c.create("/d", NodeType.DIRECTORY,
                    CreateOptions.defaults().withOrdered(true)).join()));
        }
    }
}
