package io.creel.namenode.persistence;

import static io.creel.namenode.testing.Servers.grantAll;
import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.NamespaceImage;
import io.creel.namenode.namespace.NamespaceLog;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.MemoryBlocks;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namenode log: what a restart restores (every node type, lengths, values, records, block
 * locations, used blocks, tags), torn tails, checkpoints, sync policies and corruption.
 */
class NamespaceLogTest {
    static final int BLOCK = 4096;
    static final StorageServerInfo DRAM = server("dram", "dram", "h1", 7001, 256, BLOCK, 11);
    static final StorageServerInfo DISK = server("disk", "disk", "h1", 7002, 256, BLOCK, 22);
    static final Object CONN = "connection";

    @TempDir
    Path dir;

    /** Records written by the namenode survive it, like a persistent storage server's. */
    final MemoryBlocks blocks = new MemoryBlocks();

    /** One namenode run on {@link #dir}. */
    final class Run implements AutoCloseable {
        final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), BLOCK, 60_000,
                System::currentTimeMillis);
        final BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, 0,
                System::currentTimeMillis);
        final Namespace ns = new Namespace(allocator, blocks, BLOCK, 0, System::currentTimeMillis);
        final NamenodePersistence persistence;

        Run(String sync, boolean registerServers) {
            persistence = NamenodePersistence.open(CreelConf.of(Map.of("creel.namenode.log.dir", dir.toString(),
                    "creel.namenode.log.sync", sync, "creel.namenode.log.sync.interval", "20ms",
                    "creel.namenode.checkpoint.interval", "1h")), ns, registry, allocator);
            if (registerServers) {
                grantAll(allocator, registry.register(DRAM));
                grantAll(allocator, registry.register(DISK));
            }
        }

        Run() {
            this("every", true);
        }

        OpenReply create(String path, NodeType type) {
            return Expect.done(ns.create(new CreateRequest(path, type, "", "", true), CONN));
        }

        OpenReply create(String path, NodeType type, String storageClass, boolean enumerable) {
            return Expect.done(ns.create(new CreateRequest(path, type, storageClass, "", enumerable), CONN));
        }

        /** Writes a File or KeyValue of {@code length} bytes and closes it. */
        OpenReply write(String path, NodeType type, long length) {
            OpenReply w = create(path, type);
            for (long i = 1; i * BLOCK < length; i++) {
                ns.map(w.node().id(), i, w.lease());
            }
            Expect.done(ns.commit(w.node().id(), w.lease(), length, true));
            return w;
        }

        /** Everything a restart must restore, as text (the root's id, which is new each run, as "root"). */
        String image() {
            StringBuilder out = new StringBuilder();
            TreeMap<Long, String> lines = new TreeMap<>();
            long[] root = new long[1];
            NamespaceImage.Head h = NamespaceImage.snapshot(ns, new Describer(lines), () -> { });
            root[0] = h.rootId();
            String rootLine = lines.remove(root[0]);
            out.append("root:").append(rootLine).append('\n');
            lines.values().forEach(l -> out.append(l.replace("@" + root[0] + " ", "@root ")).append('\n'));
            out.append("nodes=").append(ns.nodeCount());
            return out.toString();
        }

        @Override
        public void close() {
            persistence.close();
        }
    }

    /** Collects node descriptions keyed by id, skipping pending KeyValue versions (dropped by a restart). */
    static final class Describer implements NamespaceLog {
        final TreeMap<Long, String> lines;
        final Set<Long> pending = new HashSet<>();

        Describer(TreeMap<Long, String> lines) {
            this.lines = lines;
        }

        @Override
        public void created(long id, NodeType type, byte[] utf8Name, long parentId, String sc, String lc,
                            int replication, boolean en, boolean pend, int slot, long modified) {
            String name = new String(utf8Name, java.nio.charset.StandardCharsets.UTF_8);
            if (pend) {
                pending.add(id);
                return;
            }
            lines.put(id, id + " " + type + " " + name + " in @" + parentId + " class=" + sc + (replication == 0 ? "" : " replication=" + replication) + " enumerable=" + en
                    + " slot=" + slot);
        }

        @Override
        public void block(long nodeId, int index, AllocatedBlock b) {
            if (!pending.contains(nodeId)) {
                lines.merge(nodeId, "", (a, x) -> a);
                lines.put(nodeId, lines.get(nodeId) + " [" + index + ":" + b.server().address() + "#"
                        + b.server().localToken() + "/" + b.blockNumber() + "@" + b.tag() + "]");
            }
        }

        @Override
        public void trimmed(long nodeId, int keep) {
        }

        @Override
        public void length(long nodeId, long length, long modified) {
            if (!pending.contains(nodeId)) {
                lines.put(nodeId, lines.get(nodeId) + " length=" + length);
            }
        }

        @Override
        public void inline(long nodeId, byte[] data, long modified) {
            if (!pending.contains(nodeId)) {
                lines.put(nodeId, lines.get(nodeId) + " length=" + data.length + " inline");
            }
        }

        @Override
        public void published(long versionId, int slot, long modified) {
        }

        @Override
        public void removed(long nodeId) {
        }

        @Override
        public void moved(long nodeId, long newParentId, byte[] name, int slot, long modified) {
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        public <T> CompletableFuture<T> durable(CompletableFuture<T> outcome, long position) {
            return outcome;
        }
    }

    /** Builds a namespace using every kind of change. */
    static void buildEverything(Run r) {
        r.create("/d", NodeType.DIRECTORY);
        r.create("/d/sub", NodeType.DIRECTORY, "disk", true);
        r.write("/d/sub/big", NodeType.FILE, 5 * BLOCK + 17);
        r.write("/d/empty", NodeType.FILE, 0);
        r.write("/d/moved-away", NodeType.FILE, 100);
        Expect.done(r.ns.move("/d/moved-away", "/d/sub/moved-here"));
        r.create("/t", NodeType.TABLE);
        r.write("/t/k1", NodeType.KEYVALUE, 10);
        r.write("/t/k1", NodeType.KEYVALUE, 2 * BLOCK); // replaces the first value
        r.write("/t/k2", NodeType.KEYVALUE, 3);
        r.create("/hidden", NodeType.TABLE, "", false);
        r.write("/hidden/k", NodeType.KEYVALUE, 7);
        r.create("/b", NodeType.BAG);
        for (int i = 0; i < 20; i++) {
            r.write("/b/part-" + i, NodeType.FILE, 100L * i);
        }
        Expect.done(r.ns.remove("/b/part-3", false));
        r.create("/gone", NodeType.DIRECTORY);
        r.write("/gone/x", NodeType.FILE, 1);
        Expect.done(r.ns.remove("/gone", true));
        // An open File with a committed length, and a never-committed KeyValue version.
        OpenReply open = r.create("/d/open", NodeType.FILE);
        r.ns.map(open.node().id(), 1, open.lease());
        Expect.done(r.ns.commit(open.node().id(), open.lease(), BLOCK + 5, false));
        r.create("/t/pending", NodeType.KEYVALUE);
        r.create("/t/k2", NodeType.KEYVALUE); // a pending replacement of k2: k2 keeps its value
    }

    @Test
    void aRestartRestoresEveryNodeTypeLengthValueRecordAndBlock() {
        String before;
        List<String> listing;
        try (Run r = new Run()) {
            buildEverything(r);
            before = r.image();
            listing = names(r, "/b");
        }
        assertTrue(before.contains("length=" + (5 * BLOCK + 17)) && before.contains("KEYVALUE k1"), before);
        try (Run r = new Run()) {
            assertEquals(before, r.image(), "the restarted namespace is the same, node for node");
            assertEquals(listing, names(r, "/b"), "the Bag's directory records still list it");
            assertEquals(ErrorCode.NOT_FOUND, assertThrows(CreelException.class,
                    () -> r.ns.lookup("/t/pending", false, CONN)).code(), "an uncommitted version is dropped");
            assertEquals(2 * BLOCK, r.ns.lookup("/t/k1", false, CONN).node().length());
            assertEquals(3, r.ns.lookup("/t/k2", false, CONN).node().length());
            OpenReply open = r.ns.lookup("/d/open", true, CONN);
            assertEquals(BLOCK + 5, open.node().length(), "a File open at the crash keeps its committed length");
            assertTrue(open.lease() != 0, "and a new writer can continue it: leases are not persisted");
        }
    }

    @Test
    void inlineBytesSurviveARestartFromTheLogAndFromACheckpoint() throws IOException {
        byte[] v1 = "first value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] v2 = "second, replacing value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] small = new byte[300];
        new Random(3).nextBytes(small);
        String before;
        try (Run r = new Run()) {
            r.create("/t", NodeType.TABLE);
            r.create("/d", NodeType.DIRECTORY);
            Expect.done(r.ns.create(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, v1), CONN));
            Expect.done(r.ns.create(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, v2), CONN));
            Expect.done(r.ns.create(new CreateRequest("/t/empty", NodeType.KEYVALUE, "", "", true, new byte[0]), CONN));
            OpenReply f = r.create("/d/small", NodeType.FILE);
            Expect.done(r.ns.commit(f.node().id(), f.lease(), small.length, true, small));
            OpenReply g = r.create("/d/grown", NodeType.FILE);
            Expect.done(r.ns.commit(g.node().id(), g.lease(), 10, false, java.util.Arrays.copyOf(small, 10)));
            Expect.done(r.ns.commit(g.node().id(), g.lease(), BLOCK, true)); // now in its block
            before = r.image();
        }
        assertTrue(before.contains("small in") && before.contains("length=300 inline"), before);
        // The first restart replays the first run's log; every start writes a checkpoint, which the second restores.
        for (boolean checkpoint : new boolean[] {false, true}) {
            try (Run r = new Run()) {
                assertEquals(before, r.image(), checkpoint ? "restored from a checkpoint" : "replayed from the log");
                assertTrue(java.util.Arrays.equals(v2, r.ns.lookup("/t/k", false, CONN).data()), "the last value wins");
                assertEquals(0, r.ns.lookup("/t/empty", false, CONN).data().length);
                assertTrue(java.util.Arrays.equals(small, r.ns.lookup("/d/small", false, CONN).data()));
                OpenReply grown = r.ns.lookup("/d/grown", false, CONN);
                assertEquals(null, grown.data(), "a node that moved to blocks stays there");
                assertEquals(BLOCK, grown.node().length());
                assertEquals(checkpoint, r.persistence.recovery().logRecords() == 0, "log records replayed: "
                        + r.persistence.recovery());
            }
        }
    }

    @Test
    void aBlockMovedAwayFromAnUnreachableServerIsRestoredWhereItMovedTo() {
        String before;
        try (Run r = new Run()) {
            OpenReply w = r.create("/moved", NodeType.FILE);
            long id = w.node().id();
            BlockLocation b1 = r.ns.map(id, 1, w.lease());
            BlockLocation moved = r.ns.map(id, 1, w.lease(), b1.tag(), 0);
            assertTrue(moved.server().serverId() != b1.server().serverId());
            Expect.done(r.ns.commit(id, w.lease(), BLOCK + 5, true));
            before = r.image();
            assertTrue(before.contains("/" + moved.blockNumber() + "@" + moved.tag() + "]"), before);
        }
        try (Run r = new Run()) {
            assertEquals(before, r.image());
        }
    }

    @Test
    void aRecordsBlockMovedOffAnUnreachableServerIsRestoredWhereItMovedToFromTheLogAndFromACheckpoint() {
        String before;
        BlockLocation moved;
        try (Run r = new Run()) {
            r.create("/d", NodeType.DIRECTORY);
            r.create("/d/a", NodeType.FILE);
            long dir = r.ns.lookup("/d", false, CONN).node().id();
            assertEquals(DRAM.address(), r.ns.map(dir, 0, 0).server().address());
            blocks.unreachable(DRAM.address());
            r.create("/d/b", NodeType.DIRECTORY);
            moved = r.ns.map(dir, 0, 0);
            assertEquals(DISK.address(), moved.server().address(), "the only other server");
            before = r.image();
            assertTrue(before.contains("[0:" + DISK.address() + "#22/" + moved.blockNumber() + "@" + moved.tag() + "]"),
                    before);
        }
        for (boolean checkpoint : new boolean[] {false, true}) {
            try (Run r = new Run()) {
                assertEquals(before, r.image(), checkpoint ? "restored from a checkpoint" : "replayed from the log");
                long dir = r.ns.lookup("/d", false, CONN).node().id();
                BlockLocation where = r.ns.map(dir, 0, 0);
                assertEquals(moved.blockNumber(), where.blockNumber());
                assertEquals(moved.tag(), where.tag());
                assertEquals(List.of("a", "b"), List.of(blocks.record(where, 0).name(), blocks.record(where, 1).name()),
                        "the listing reads the moved block");
            }
        }
    }

    @Test
    void restoredBlocksStayUsedAndNewTagsAreLarger() {
        Set<String> oldBlocks = new HashSet<>();
        long oldMaxTag = 0;
        try (Run r = new Run()) {
            buildEverything(r);
            for (String line : r.image().split("\n")) {
                for (String b : line.split("\\[")) {
                    if (b.contains("@") && b.contains("]")) {
                        oldBlocks.add(b.substring(b.indexOf(':') + 1, b.indexOf('@')));
                        oldMaxTag = Math.max(oldMaxTag, Long.parseLong(b.substring(b.indexOf('@') + 1, b.indexOf(']'))));
                    }
                }
            }
        }
        try (Run r = new Run("every", false)) {
            // Before its servers have registered again the space is not gone, it is not back yet.
            Expect.error(ErrorCode.UNAVAILABLE, () -> r.ns.create(new CreateRequest("/x", NodeType.FILE, "", "", true),
                    CONN), "have not registered again since it restarted");
            BlockLocation old = r.ns.map(r.ns.lookup("/d/sub/big", false, CONN).node().id(), 0, 0);
            assertEquals("h1:7002", old.server().address(), "restored locations name the server by identity");
            // The servers come back; their regions are granted again (as a region sync would).
            grantAll(r.allocator, r.registry.register(DRAM));
            grantAll(r.allocator, r.registry.register(DISK));
            for (int i = 0; i < 100; i++) {
                OpenReply w = r.create("/new-" + i, NodeType.FILE);
                BlockLocation b = w.firstBlock();
                assertFalse(oldBlocks.contains(b.server().address() + "#" + b.server().localToken() + "/"
                        + b.blockNumber()), "block " + b + " was in use before the restart");
                assertTrue(Long.compareUnsigned(b.tag(), oldMaxTag) > 0, "tags continue above every earlier tag");
            }
        }
    }

    @Test
    void aTornTailLosesOnlyWhatWasNotAcknowledged() throws IOException {
        List<Long> ackedAt = new ArrayList<>();
        Path segment;
        try (Run r = new Run()) {
            segment = onlyLogSegment();
            for (int i = 0; i < 40; i++) {
                r.create("/n" + i, NodeType.DIRECTORY);
                ackedAt.add(Files.size(segment));
            }
        }
        byte[] full = Files.readAllBytes(segment);
        Random random = new Random(7);
        for (int trial = 0; trial < 25; trial++) {
            int cut = trial == 0 ? full.length - 1 : random.nextInt(full.length + 1);
            Path copy = Files.createTempDirectory(dir.getParent(), "torn-");
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
            try (RandomAccessFile raf = new RandomAccessFile(copy.resolve(segment.getFileName()).toFile(), "rw")) {
                raf.setLength(cut);
            }
            Path original = dir;
            dir = copy;
            try (Run r = new Run()) {
                for (int i = 0; i < ackedAt.size(); i++) {
                    boolean survives = ackedAt.get(i) <= cut;
                    boolean present = exists(r, "/n" + i);
                    assertEquals(survives, present, "/n" + i + " with the log cut at " + cut + " of " + full.length);
                }
            } finally {
                dir = original;
            }
        }
    }

    @Test
    void aCheckpointReplacesOlderFilesAndLaterChangesAreReplayedOnTopOfIt() throws IOException {
        String before;
        try (Run r = new Run()) {
            buildEverything(r);
            Path oldSegment = onlyLogSegment();
            assertTrue(r.persistence.checkpoint());
            assertFalse(Files.exists(oldSegment), "the segment the checkpoint covers is deleted");
            assertFalse(r.persistence.checkpoint(), "nothing changed: no new checkpoint");
            r.write("/after", NodeType.FILE, 3 * BLOCK);
            Expect.done(r.ns.remove("/d/sub", true));
            r.write("/t/k1", NodeType.KEYVALUE, 1);
            before = r.image();
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.filter(f -> f.getFileName().toString().startsWith("checkpoint-")).count());
        }
        try (Run r = new Run()) {
            assertEquals(before, r.image());
            assertEquals(1, r.persistence.recovery().segments(), "only the segment after the checkpoint is replayed");
        }
        try (Run r = new Run()) {
            assertEquals(before, r.image(), "a second restart (from the start-up checkpoint) is the same");
            assertEquals(0, r.persistence.recovery().logRecords());
        }
    }

    @Test
    void syncEveryFsyncsOncePerSequentialCreateAndTheOtherPoliciesDoNotWait() {
        int n = 200;
        long everyNanos;
        try (Run r = new Run("every", true)) {
            long syncs = r.persistence.syncCount();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                r.create("/e" + i, NodeType.DIRECTORY);
            }
            everyNanos = System.nanoTime() - t0;
            long used = r.persistence.syncCount() - syncs;
            assertTrue(used >= n && used <= n + 2, "each acknowledged create waited for its own fsync: " + used);
        }
        for (String policy : List.of("none", "interval")) {
            try (Run r = new Run(policy, true)) {
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    r.create("/" + policy + i, NodeType.DIRECTORY);
                }
                long nanos = System.nanoTime() - t0;
                System.out.printf("namenode log: %d sequential creates, sync=every %.1f us each, sync=%s %.1f us each%n",
                        n, everyNanos / 1e3 / n, policy, nanos / 1e3 / n);
                if (policy.equals("none")) {
                    assertEquals(0, r.persistence.syncCount(), "sync=none never fsyncs the log itself");
                }
            }
        }
        try (Run r = new Run()) {
            for (int i = 0; i < n; i++) {
                assertTrue(exists(r, "/e" + i) && exists(r, "/none" + i) && exists(r, "/interval" + i));
            }
        }
    }

    @Test
    void concurrentCallsShareFsyncs() {
        try (Run r = new Run()) {
            long syncs = r.persistence.syncCount();
            List<CompletableFuture<OpenReply>> all = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                all.add(r.ns.create(new CreateRequest("/c" + i, NodeType.DIRECTORY, "", "", true), CONN));
            }
            all.forEach(Expect::done);
            long used = r.persistence.syncCount() - syncs;
            System.out.println("namenode log: 300 concurrent creates needed " + used + " fsyncs");
            assertTrue(used <= 300, "group commit: " + used);
        }
    }

    @Test
    void aCorruptRecordInTheMiddleIsAClearStartupError() throws IOException {
        Path segment;
        try (Run r = new Run()) {
            segment = onlyLogSegment();
            for (int i = 0; i < 20; i++) {
                r.create("/n" + i, NodeType.DIRECTORY);
            }
        }
        byte[] bytes = Files.readAllBytes(segment);
        int at = bytes.length / 2;
        bytes[at] ^= 0x5a;
        Files.write(segment, bytes);
        CreelException e = assertThrows(CreelException.class, () -> new Run().close());
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains(segment.getFileName().toString()) && e.getMessage().contains("offset"),
                e.getMessage());
    }

    @Test
    void aSecondNamenodeOnTheSameDirectoryIsRefused() {
        try (Run r = new Run()) {
            CreelException e = assertThrows(CreelException.class, () -> new Run().close());
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("in use by another namenode"), e.getMessage());
        }
    }

    private Path onlyLogSegment() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> logs = files.filter(f -> f.getFileName().toString().startsWith("log-")).toList();
            assertEquals(1, logs.size(), logs.toString());
            return logs.get(0);
        }
    }

    private static boolean exists(Run r, String path) {
        try {
            r.ns.lookup(path, false, CONN);
            return true;
        } catch (CreelException e) {
            assertEquals(ErrorCode.NOT_FOUND, e.code());
            return false;
        }
    }

    private List<String> names(Run r, String path) {
        var c = r.ns.lookup(path, false, CONN).node();
        List<String> out = new ArrayList<>();
        for (int slot = 0; slot < c.length() / 512; slot++) {
            var rec = blocks.record(r.ns.map(c.id(), (long) slot * 512 / BLOCK, 0), slot);
            if (rec != null) {
                out.add(rec.name());
            }
        }
        out.sort(null);
        return out;
    }
}
