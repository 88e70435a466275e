package io.creel.namenode.persistence;

import static io.creel.namenode.testing.Servers.grantAll;
import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.MemoryBlocks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log's and checkpoint's format version: every file starts with it, a file from a newer
 * release is refused naming both versions, and a file from before versions existed still reads.
 */
class LogFormatVersionTest {
    static final int BLOCK = 4096;

    @TempDir
    Path dir;

    final MemoryBlocks blocks = new MemoryBlocks();

    /** One namenode run on {@link #dir}. */
    final class Run implements AutoCloseable {
        final ServerRegistry registry = new ServerRegistry(List.of("dram"), BLOCK, 60_000, System::currentTimeMillis);
        final BlockAllocator allocator = new BlockAllocator(List.of("dram"), registry, 0, System::currentTimeMillis);
        final Namespace ns = new Namespace(allocator, blocks, BLOCK, 0, System::currentTimeMillis);
        final NamenodePersistence persistence;

        Run() {
            persistence = NamenodePersistence.open(CreelConf.of(Map.of("creel.namenode.log.dir", dir.toString(),
                    "creel.namenode.checkpoint.interval", "1h")), ns, registry, allocator);
            grantAll(allocator, registry.register(server("dram", "dram", "h1", 7001, 256, BLOCK, 11)));
        }

        void mkdir(String path) {
            Expect.done(ns.create(new CreateRequest(path, NodeType.DIRECTORY, "", "", true), "connection"));
        }

        @Override
        public void close() {
            persistence.close();
        }
    }

    /** A checkpoint and a log segment after it, as a namenode of this release leaves them. */
    private void writeCheckpointAndLog() throws IOException {
        try (Run r = new Run()) {
            r.mkdir("/before");
            assertTrue(r.persistence.checkpoint());
            r.mkdir("/after");
        }
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> f.getFileName().toString().matches("(log|checkpoint)-\\d{20}")).sorted().toList();
        }
    }

    /** The format record: length 3, its CRC32C, type, u16 version. */
    private static byte[] formatRecord(int version) {
        byte[] body = {(byte) LogFormat.FORMAT, (byte) (version >> 8), (byte) version};
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(LogFormat.FRAME_HEADER + body.length).putInt(body.length).putInt((int) crc.getValue())
                .put(body).array();
    }

    @Test
    void everyLogSegmentAndCheckpointStartsWithTheFormatVersion() throws IOException {
        writeCheckpointAndLog();
        List<Path> files = files();
        assertEquals(2, files.size(), files.toString());
        for (Path f : files) {
            byte[] start = Arrays.copyOf(Files.readAllBytes(f), LogFormat.FRAME_HEADER + 3);
            assertEquals(Arrays.toString(formatRecord(LogFormat.VERSION)), Arrays.toString(start), f.toString());
        }
    }

    @Test
    void aFileFromANewerReleaseIsRefusedNamingBothVersions() throws IOException {
        writeCheckpointAndLog();
        Path checkpoint = files().get(0);
        byte[] bytes = Files.readAllBytes(checkpoint);
        System.arraycopy(formatRecord(LogFormat.VERSION + 1), 0, bytes, 0, LogFormat.FRAME_HEADER + 3);
        Files.write(checkpoint, bytes);
        CreelException e = assertThrows(CreelException.class, () -> new Run().close());
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains(checkpoint.getFileName().toString())
                && e.getMessage().contains("format version " + (LogFormat.VERSION + 1))
                && e.getMessage().contains("reads versions 1 to " + LogFormat.VERSION)
                && !e.getMessage().contains("corrupt"), e.getMessage());
    }

    @Test
    void filesWithoutAFormatRecordAreVersionOneAndStillRestore() throws IOException {
        writeCheckpointAndLog();
        int skip = LogFormat.FRAME_HEADER + 3;
        for (Path f : files()) { // as a release before versions wrote them
            byte[] bytes = Files.readAllBytes(f);
            Files.write(f, Arrays.copyOfRange(bytes, skip, bytes.length));
        }
        try (Run r = new Run()) {
            assertEquals(3, r.ns.nodeCount(), "the root, /before (checkpoint) and /after (log)");
        }
    }

    @Test
    void aFormatRecordAnywhereButFirstIsCorruption() throws IOException {
        writeCheckpointAndLog();
        Path log = files().get(1);
        byte[] bytes = Files.readAllBytes(log);
        byte[] doubled = new byte[bytes.length + LogFormat.FRAME_HEADER + 3];
        System.arraycopy(bytes, 0, doubled, 0, bytes.length);
        System.arraycopy(formatRecord(LogFormat.VERSION), 0, doubled, bytes.length, LogFormat.FRAME_HEADER + 3);
        Files.write(log, doubled);
        CreelException e = assertThrows(CreelException.class, () -> new Run().close());
        assertTrue(e.getMessage().contains("corrupt") && e.getMessage().contains("not the file's first"),
                e.getMessage());
    }
}
