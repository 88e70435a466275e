package io.creel.namenode.persistence;

import static io.creel.namenode.testing.Servers.grantAll;
import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.records.RecordStore;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.retry.LoggedAnswer;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.MemoryBlocks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Answers to identified requests in the namenode log: logged with the change they answer, restored
 * at a restart from the log and from a checkpoint, within the retry cache's bounds.
 */
class LoggedAnswersTest {
    static final int BLOCK = 4096;
    static final StorageServerInfo DRAM = server("dram", "dram", "h1", 7001, 256, BLOCK, 11);
    static final Object CONN = "connection";

    @TempDir
    Path dir;
    final MemoryBlocks blocks = new MemoryBlocks();
    final HeldRecords records = new HeldRecords(blocks);

    /** Directory-record writes that can be held in flight and then completed or failed. */
    static final class HeldRecords implements RecordStore {
        private final RecordStore under;
        private final List<Runnable> held = new ArrayList<>();
        private final List<CompletableFuture<Void>> waiting = new ArrayList<>();
        private boolean holding;

        HeldRecords(RecordStore under) {
            this.under = under;
        }

        synchronized void hold() {
            holding = true;
        }

        @Override
        public synchronized CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer record) {
            if (!holding) {
                return under.write(block, offset, record);
            }
            ByteBuffer copy = ByteBuffer.allocate(record.remaining()).put(record).flip();
            CompletableFuture<Void> done = new CompletableFuture<>();
            held.add(() -> under.write(block, offset, copy).whenComplete((v, e) -> {
                if (e != null) {
                    done.completeExceptionally(e);
                } else {
                    done.complete(null);
                }
            }));
            waiting.add(done);
            return done;
        }

        /** Lets the held writes through, and later ones. */
        void release() {
            List<Runnable> go;
            synchronized (this) {
                holding = false;
                go = List.copyOf(held);
                held.clear();
                waiting.clear();
            }
            go.forEach(Runnable::run);
        }

        /** Fails the held writes, as a storage server that went away would. */
        void fail() {
            List<CompletableFuture<Void>> go;
            synchronized (this) {
                holding = false;
                go = List.copyOf(waiting);
                held.clear();
                waiting.clear();
            }
            go.forEach(f -> f.completeExceptionally(new CreelException(ErrorCode.UNAVAILABLE,
                    "the records' storage server went away (on purpose)")));
        }
    }
    final RequestIdentity client = RequestIdentity.newClient();

    /** One namenode run on {@link #dir}. */
    final class Run implements AutoCloseable {
        final ServerRegistry registry = new ServerRegistry(List.of("dram"), BLOCK, 60_000, System::currentTimeMillis);
        final BlockAllocator allocator = new BlockAllocator(List.of("dram"), registry, 0, System::currentTimeMillis);
        final Namespace ns = new Namespace(allocator, records, BLOCK, 0, System::currentTimeMillis);
        final NamenodePersistence persistence;

        Run(String cacheSize) {
            persistence = NamenodePersistence.open(CreelConf.of(Map.of("creel.namenode.log.dir", dir.toString(),
                    "creel.namenode.checkpoint.interval", "1h", "creel.namenode.retry.cache.size", cacheSize)), ns,
                    registry, allocator);
            grantAll(allocator, registry.register(DRAM));
        }

        Run() {
            this("100");
        }

        /** The restored answers by sequence number. */
        Map<Long, LoggedAnswer> restored() {
            Map<Long, LoggedAnswer> out = new HashMap<>();
            for (LoggedAnswer a : persistence.restoredAnswers()) {
                assertTrue(a.identity().sameClient(client), "an answer of another client: " + a.identity());
                out.put(a.identity().sequence(), a);
            }
            return out;
        }

        @Override
        public void close() {
            persistence.close();
        }
    }

    private RequestIdentity req(long seq) {
        return client.withSequence(seq);
    }

    private static CreateRequest create(String path, NodeType type) {
        return new CreateRequest(path, type, "", "", true);
    }

    @Test
    void everyChangeOfAnIdentifiedRequestIsRestoredWithTheAnswerItGot() {
        OpenReply dir;
        OpenReply file;
        NodeInfo committed;
        OpenReply moved;
        NodeInfo removed;
        try (Run r = new Run()) {
            dir = Expect.done(r.ns.create(create("/d", NodeType.DIRECTORY), CONN, req(1)));
            file = Expect.done(r.ns.create(create("/d/f", NodeType.FILE), CONN, req(2)));
            committed = Expect.done(r.ns.commit(file.node().id(), file.lease(), 10, true, null, req(3)));
            moved = Expect.done(r.ns.move("/d/f", "/d/g", req(4)));
            removed = Expect.done(r.ns.remove("/d/g", false, req(5)));
        }
        try (Run r = new Run()) {
            Map<Long, LoggedAnswer> a = r.restored();
            assertEquals(5, a.size(), a.toString());
            assertAnswer(a.get(1L), Opcode.CREATE, dir.encoded());
            assertAnswer(a.get(2L), Opcode.CREATE, file.encoded());
            assertAnswer(a.get(3L), Opcode.COMMIT, new NodeReply(committed).encoded());
            assertAnswer(a.get(4L), Opcode.MOVE, moved.encoded());
            assertAnswer(a.get(5L), Opcode.REMOVE, new NodeReply(removed).encoded());
        }
    }

    private static void assertAnswer(LoggedAnswer a, Opcode op, byte[] reply) {
        assertEquals(op, a.opcode());
        assertArrayEquals(reply, a.reply());
        assertTrue(Math.abs(System.currentTimeMillis() - a.atMillis()) < 60_000, "answered just now: " + a.atMillis());
    }

    @Test
    void anAnswerIsLoggedWithItsChangeWhileItsDirectoryRecordIsStillBeingWritten() {
        CompletableFuture<OpenReply> created;
        try (Run r = new Run()) {
            records.hold();
            created = r.ns.create(create("/d", NodeType.DIRECTORY), CONN, req(1));
            assertFalse(created.isDone(), "the record write is held");
        } // the namenode stops here, as if it died: the change and its answer are in the log
        records.release();
        OpenReply reply = Expect.done(created);
        try (Run r = new Run()) {
            assertAnswer(r.restored().get(1L), Opcode.CREATE, reply.encoded());
            assertEquals(reply.node().id(), r.ns.lookup("/d", false, CONN).node().id());
        }
    }

    @Test
    void anAnswerWhoseChangeWasUndoneIsWithdrawnSoItsRetryRunsAgain() {
        try (Run r = new Run()) {
            Expect.done(r.ns.create(create("/d", NodeType.DIRECTORY), CONN, req(1)));
            records.hold();
            CompletableFuture<OpenReply> failed = r.ns.create(create("/d/e", NodeType.DIRECTORY), CONN, req(2));
            records.fail();
            // Its records cannot move to another server (there is none): the create is undone.
            Expect.error(ErrorCode.OUT_OF_SPACE, () -> failed, "/d/e", "the change was undone");
        }
        try (Run r = new Run()) {
            assertEquals(List.of(1L), List.copyOf(r.restored().keySet()));
            Expect.error(ErrorCode.NOT_FOUND, () -> r.ns.lookup("/d/e", false, CONN));
        }
    }

    @Test
    void answersSurviveACheckpointThatDeletesTheLogHoldingThem() throws IOException {
        try (Run r = new Run()) {
            Expect.done(r.ns.create(create("/a", NodeType.DIRECTORY), CONN, req(1)));
            assertTrue(r.persistence.checkpoint());
            Expect.done(r.ns.create(create("/b", NodeType.DIRECTORY), CONN, req(2)));
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.filter(f -> f.getFileName().toString().startsWith("log-")).count(),
                    "the segment that held the first answer is gone");
        }
        try (Run r = new Run()) {
            assertEquals(List.of(1L, 2L), r.restored().keySet().stream().sorted().toList());
        }
        try (Run r = new Run()) {
            assertEquals(2, r.restored().size(), "a restart's own checkpoint carries them on");
        }
    }

    @Test
    void aFailedRequestLeavesNoAnswerSoItsRetryRunsAgain() {
        try (Run r = new Run()) {
            Expect.done(r.ns.create(create("/a", NodeType.DIRECTORY), CONN, req(1)));
            Expect.error(ErrorCode.ALREADY_EXISTS, () -> r.ns.create(create("/a", NodeType.DIRECTORY), CONN, req(2)));
            Expect.error(ErrorCode.NOT_FOUND, () -> r.ns.remove("/nothing", false, req(3)));
        }
        try (Run r = new Run()) {
            assertEquals(List.of(1L), List.copyOf(r.restored().keySet()));
        }
    }

    @Test
    void anAnswerToAnUnknownOperationIsCorruptionNamingTheFileAndOffset() throws IOException {
        try (Run r = new Run()) {
            Expect.done(r.ns.create(create("/a", NodeType.DIRECTORY), CONN, req(1)));
        }
        Path log;
        try (Stream<Path> files = Files.list(dir)) {
            log = files.filter(f -> f.getFileName().toString().startsWith("log-")).findFirst().orElseThrow();
        }
        long offset = Files.size(log);
        io.netty.buffer.ByteBuf b = io.netty.buffer.Unpooled.buffer();
        RecordEncoder enc = new RecordEncoder(b);
        enc.answer(new LoggedAnswer(req(2), Opcode.CREATE, new byte[] {1, 2}, 5));
        enc.removed(1); // a record after it: not a torn tail
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        b.release();
        int opcodeAt = LogFormat.FRAME_HEADER + 1 + RequestIdentity.SIZE;
        bytes[opcodeAt] = 0; // no opcode has code 0
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        int bodyLength = java.nio.ByteBuffer.wrap(bytes).getInt(0);
        crc.update(bytes, LogFormat.FRAME_HEADER, bodyLength);
        java.nio.ByteBuffer.wrap(bytes).putInt(4, (int) crc.getValue());
        Files.write(log, bytes, java.nio.file.StandardOpenOption.APPEND);
        CreelException e = Expect.error(ErrorCode.CONFIGURATION, Run::new, "is corrupt at offset " + offset,
                "an answer to unknown opcode 0");
        assertTrue(e.getMessage().contains(log.getFileName().toString()), e.getMessage());
    }

    @Test
    void requestsWithoutAnIdentityLogNoAnswer() {
        try (Run r = new Run()) {
            Expect.done(r.ns.create(create("/a", NodeType.DIRECTORY), CONN));
        }
        try (Run r = new Run()) {
            assertTrue(r.restored().isEmpty());
            assertEquals(2, r.ns.nodeCount(), "the change itself is restored");
        }
    }

    @Test
    void onlyTheNewestAnswersWithinTheCacheSizeAreRestored() throws IOException {
        try (Run r = new Run("2")) {
            for (long seq = 1; seq <= 4; seq++) {
                Expect.done(r.ns.create(create("/n" + seq, NodeType.DIRECTORY), CONN, req(seq)));
                if (seq == 2) {
                    assertTrue(r.persistence.checkpoint());
                }
            }
        }
        try (Run r = new Run("2")) {
            assertEquals(List.of(3L, 4L), r.restored().keySet().stream().sorted().toList());
        }
    }
}
