package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many writers and readers at once: files, KeyValue replacement, and a reader following a writer. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConcurrentAccessTest {
    private static final int MIB = 1 << 20;
    private static Clusters.Running running;

    @BeforeAll
    static void start() {
        // 64 KiB blocks: every value and file holds at least one block, and a 1.5 MiB value spans 24.
        running = Clusters.start(b -> b.dram(96L * MIB).disk(256L * MIB).set("creel.block.size", "64k"));
    }

    @AfterAll
    static void stop() {
        running.close();
    }

    @Test
    void concurrentWritersAndReadersOfDifferentFilesNeverMixBytes() throws Exception {
        int files = 6;
        long size = 12L * MIB + 4321;
        ExecutorService pool = Executors.newFixedThreadPool(files);
        try (CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/concurrent", NodeType.DIRECTORY).join();
            List<Future<?>> writers = new ArrayList<>();
            for (int f = 0; f < files; f++) {
                int id = f;
                writers.add(pool.submit(() -> {
                    DirectWriter w = client.create("/concurrent/f" + id, NodeType.FILE).join().writer();
                    ByteBuffer buf = ByteBuffer.allocate(256 * 1024 + id); // odd sizes cross blocks at odd places
                    for (long off = 0; off < size; off += buf.capacity()) {
                        buf.clear().limit((int) Math.min(buf.capacity(), size - off));
                        TestData.fill(buf, 100 + id, off);
                        w.write(buf).join();
                    }
                    w.close().join();
                    return null;
                }));
            }
            for (Future<?> w : writers) {
                w.get(3, TimeUnit.MINUTES);
            }
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < files * 2; r++) {
                int id = r % files;
                readers.add(pool.submit(() -> {
                    CreelNode n = client.lookup("/concurrent/f" + id).join();
                    assertEquals(size, n.length());
                    DirectReader reader = n.reader();
                    ByteBuffer buf = ByteBuffer.allocate(300_000);
                    long off = 0;
                    int got;
                    while ((got = reader.read(buf.clear()).join()) > 0) {
                        buf.flip();
                        TestData.verify(buf, 100 + id, off, "/concurrent/f" + id);
                        off += got;
                    }
                    assertEquals(size, off);
                    return null;
                }));
            }
            for (Future<?> r : readers) {
                r.get(3, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReaderSeesAFileUpToItsSyncedLengthWhileItIsWritten() {
        try (CreelClient writerClient = CreelClient.connect(running.cluster.clientConf());
             CreelClient readerClient = CreelClient.connect(running.cluster.clientConf())) {
            DirectWriter w = writerClient.create("/growing", NodeType.FILE).join().writer();
            long written = 0;
            for (int step = 1; step <= 5; step++) {
                ByteBuffer buf = ByteBuffer.allocate(700_000);
                TestData.fill(buf, 55, written);
                w.write(buf).join();
                written += 700_000;
                w.sync().join();
                CreelNode seen = readerClient.lookup("/growing").join();
                assertEquals(written, seen.length(), "readers see exactly the synced length");
                assertTrue(seen.info().writing(), "the node reports an active writer");
                ByteBuffer all = ByteBuffer.allocate((int) written);
                assertEquals((int) written, seen.reader().read(all).join());
                all.flip();
                TestData.verify(all, 55, 0, "/growing after sync " + step);
            }
            w.close().join();
            CreelNode done = readerClient.lookup("/growing").join();
            assertEquals(written, done.length());
            assertTrue(!done.info().writing());
        }
    }

    @Test
    void keyValueReplacementIsAtomicUnderConcurrentReaders() throws Exception {
        // Values span many blocks, so a torn read would show bytes of two versions.
        int valueSize = MIB + MIB / 2;
        int versions = 40;
        try (CreelClient writer = CreelClient.connect(running.cluster.clientConf());
             CreelClient reader = CreelClient.connect(running.cluster.clientConf())) {
            writer.create("/kv", NodeType.TABLE).join();
            writer.putValue("/kv", "hot", uniform(0, valueSize)).join();
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger reads = new AtomicInteger();
            Set<Integer> seenVersions = java.util.concurrent.ConcurrentHashMap.newKeySet();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<?>> readers = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    readers.add(pool.submit(() -> {
                        while (!done.get()) {
                            ByteBuffer v = reader.getValue("/kv", "hot").join();
                            assertEquals(valueSize, v.remaining(), "a reader saw a partial value");
                            int version = v.get(0) & 0xff;
                            for (int i = 0; i < valueSize; i++) {
                                if ((v.get(i) & 0xff) != version) {
                                    throw new AssertionError("mixed value: byte " + i + " is from version "
                                            + (v.get(i) & 0xff) + ", byte 0 from version " + version);
                                }
                            }
                            seenVersions.add(version);
                            reads.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (int v = 1; v <= versions; v++) {
                    // Each version waits for a read that began after the last one, so on a loaded
                    // machine readers still see replacements instead of all 40 landing before the first read.
                    int before = reads.get();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (reads.get() < before + 3 && System.nanoTime() < deadline) {
                        Thread.sleep(1);
                    }
                    writer.putValue("/kv", "hot", uniform(v, valueSize)).join();
                }
                done.set(true);
                for (Future<?> r : readers) {
                    r.get(2, TimeUnit.MINUTES);
                }
            } finally {
                done.set(true);
                pool.shutdownNow();
            }
            assertTrue(reads.get() > 0, "readers ran");
            assertTrue(seenVersions.size() > 1, "readers observed replacements: " + seenVersions);
            assertEquals(versions, reader.getValue("/kv", "hot").join().get(0) & 0xff, "last commit wins");
        }
    }

    @Test
    void amongConcurrentKeyValueWritersTheLastToCommitWins() {
        try (CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/race", NodeType.TABLE).join();
            CreelNode first = client.create("/race/k", NodeType.KEYVALUE).join();
            CreelNode second = client.create("/race/k", NodeType.KEYVALUE).join();
            second.writer().write(ByteBuffer.wrap("second".getBytes())).join();
            first.writer().write(ByteBuffer.wrap("first".getBytes())).join();
            second.writer().close().join();
            assertEquals("second", text(client.getValue("/race", "k").join()));
            first.writer().close().join();
            assertEquals("first", text(client.getValue("/race", "k").join()), "the later commit replaced it");
        }
    }

    @Test
    void manyCreatesInFlightFromOneClientAllSucceed() {
        try (CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/burst", NodeType.TABLE).join();
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                puts.add(client.putValue("/burst", "k" + i, ByteBuffer.wrap(("v" + i).getBytes())));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
            Set<String> names = new HashSet<>();
            client.list("/burst").join().forEach(e -> names.add(e.name()));
            assertEquals(500, names.size());
            assertEquals("v321", text(client.getValue("/burst", "k321").join()));
        }
    }

    @Test
    void aRepeatedGetNeverServesAValueReplacedBeforeItStarted() {
        // One-block values: the reader's repeated gets read speculatively from where it last saw the value.
        try (CreelClient writer = CreelClient.connect(running.cluster.clientConf());
             CreelClient reader = CreelClient.connect(running.cluster.clientConf())) {
            writer.create("/fresh", NodeType.TABLE).join();
            for (int v = 1; v <= 200; v++) {
                writer.putValue("/fresh", "k", uniform(v, 1000 + v)).join();
                ByteBuffer got = reader.getValue("/fresh", "k").join();
                assertEquals(1000 + v, got.remaining(), "the value committed before this get began");
                assertEquals(v, got.get(0) & 0xff);
                assertEquals(got, reader.getValue("/fresh", "k").join(), "an unchanged value reads the same");
            }
            writer.delete("/fresh/k", false).join();
            CompletionException gone = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> reader.getValue("/fresh", "k").join());
            assertEquals(io.creel.common.error.ErrorCode.NOT_FOUND,
                    io.creel.common.error.CreelException.unwrap(gone).code());
        }
    }

    private static ByteBuffer uniform(int version, int size) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, (byte) version);
        return ByteBuffer.wrap(b);
    }

    private static String text(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return new String(a);
    }
}
