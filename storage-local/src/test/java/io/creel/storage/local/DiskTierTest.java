package io.creel.storage.local;

import static io.creel.storage.local.TestServer.BLOCK;
import static io.creel.storage.local.TestServer.await;
import static io.creel.storage.local.TestServer.read;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.local.medium.DiskMedium;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.TransportContext;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk tier: O_DIRECT selection, read-modify-write of partial sectors, its files. */
class DiskTierTest {
    private static final Path SHM = Path.of("/dev/shm");

    @TempDir
    Path dir;

    @Test
    void onAFilesystemThatAllowsItTheTierUsesODirect() {
        try (TestServer s = TestServer.start("disk", dir)) {
            assumeTrue(s.service.summary().contains("O_DIRECT,"), "the filesystem of " + dir + " refuses O_DIRECT: "
                    + s.service.summary());
            assertTrue(s.service.summary().matches(".*O_DIRECT, \\d+-byte sectors.*"), s.service.summary());
        }
    }

    @Test
    void onDevShmAutoFallsBackIfTheKernelRefusesODirectThere() throws IOException {
        assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "no writable /dev/shm");
        Path shmDir = Files.createTempDirectory(SHM, "creel-disk-test");
        try (TestServer s = TestServer.start("disk", shmDir)) {
            assumeTrue(!s.service.summary().contains("O_DIRECT,"),
                    "tmpfs accepts O_DIRECT on this kernel (Linux 6.6+); the medium test covers refusal");
            assertTrue(s.service.summary().contains("page cache (O_DIRECT not supported by this filesystem)"),
                    s.service.summary());
            byte[] bytes = TestServer.pattern(5000, 3);
            try (BlockTransport tcp = s.transport("tcp")) {
                TestServer.write(tcp, s.at(1, 1), 333, bytes);
                assertArrayEquals(bytes, read(tcp, s.at(1, 1), 333, 5000));
            }
        } finally {
            deleteTree(shmDir);
        }
    }

    @Test
    void onDevShmRequiringODirectFailsIfTheKernelRefusesItThere() throws IOException {
        assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "no writable /dev/shm");
        Path shmDir = Files.createTempDirectory(SHM, "creel-disk-test");
        try {
            try (TestServer probe = TestServer.start("disk", shmDir)) {
                assumeTrue(!probe.service.summary().contains("O_DIRECT,"),
                        "tmpfs accepts O_DIRECT on this kernel (Linux 6.6+); the medium test covers refusal");
            }
            CreelException e = TestServer.startFailure("disk", shmDir, Map.of("creel.storage.disk.direct", "true"));
            assertEquals(ErrorCode.CONFIGURATION, e.code(), e.toString());
            assertTrue(e.getMessage().contains("O_DIRECT"), e.getMessage());
            try (var files = Files.list(shmDir)) {
                assertEquals(0, files.count(), "a failed start leaves no files behind");
            }
        } finally {
            deleteTree(shmDir);
        }
    }

    /** Stands in for a filesystem that refuses O_DIRECT, as tmpfs did before Linux 6.6. */
    private static final DiskMedium.DirectOpener REFUSING = file -> {
        throw new java.nio.file.FileSystemException(file.toString(), null, "Invalid argument");
    };

    @Test
    void autoFallsBackToThePageCacheWhenTheFilesystemRefusesODirect() throws IOException {
        Path file = dir.resolve("medium.data");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(2L * BLOCK);
        }
        try (DiskMedium m = DiskMedium.open(file, BLOCK, 2, DiskMedium.DirectMode.AUTO, REFUSING)) {
            assertFalse(m.isDirect());
            assertEquals("page cache (O_DIRECT not supported by this filesystem)", m.describe());
            m.write(1, 77, ByteBuffer.wrap(new byte[] {1, 2, 3}));
            ByteBuffer back = ByteBuffer.allocate(5);
            m.read(1, 76, back);
            assertArrayEquals(new byte[] {0, 1, 2, 3, 0}, back.array());
        }
    }

    @Test
    void requiringODirectFromAFilesystemThatRefusesItIsAConfigurationError() throws IOException {
        Path file = dir.resolve("medium.data");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(2L * BLOCK);
        }
        CreelException e = org.junit.jupiter.api.Assertions.assertThrows(CreelException.class,
                () -> DiskMedium.open(file, BLOCK, 2, DiskMedium.DirectMode.REQUIRED, REFUSING));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.storage.disk.direct=true"), e.getMessage());
    }

    @Test
    void directFalseUsesThePageCache() {
        try (TestServer s = TestServer.start("disk", dir, Map.of("creel.storage.disk.direct", "false"))) {
            assertTrue(s.service.summary().contains("page cache (O_DIRECT disabled"), s.service.summary());
        }
    }

    @Test
    void concurrentUnalignedWritesToOneSectorLoseNoBytes() throws Exception {
        Path file = dir.resolve("medium.data");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(4L * BLOCK);
        }
        int threads = 8;
        int perThread = 96;
        int base = 4096 - 300; // the bytes straddle a sector boundary
        try (DiskMedium medium = DiskMedium.open(file, BLOCK, 4, DiskMedium.DirectMode.AUTO)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int me = t;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            // thread t owns every byte at base + i*threads + t: neighbours share each sector
                            medium.write(2, base + i * threads + me, ByteBuffer.wrap(new byte[] {(byte) (me + 1)}));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            ByteBuffer back = ByteBuffer.allocate(threads * perThread);
            medium.read(2, base, back);
            for (int i = 0; i < threads * perThread; i++) {
                assertEquals(i % threads + 1, back.get(i), "byte " + (base + i) + " (" + medium.describe() + ")");
            }
        }
    }

    @Test
    void concurrentUnalignedWritesOverSeveralConnectionsLoseNoBytes() {
        try (TestServer s = TestServer.start("disk", dir)) {
            int clients = 4;
            int perClient = 64;
            int base = 8192 - 100;
            List<RpcConnections> pools = new ArrayList<>();
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            try {
                for (int c = 0; c < clients; c++) {
                    RpcConnections own = new RpcConnections(s.clientLoops, s.transportContext.conf());
                    pools.add(own);
                    BlockTransport tcp = s.transport("tcp", new TransportContext(s.transportContext.conf(), own));
                    for (int i = 0; i < perClient; i++) {
                        byte[] piece = {(byte) (c + 1), (byte) (c + 1), (byte) (c + 1)};
                        writes.add(tcp.write(s.at(7, 5), base + (i * clients + c) * 3, ByteBuffer.wrap(piece)));
                    }
                }
                await(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
            } finally {
                pools.forEach(RpcConnections::close);
            }
            try (BlockTransport tcp = s.transport("tcp")) {
                byte[] back = read(tcp, s.at(7, 5), base, clients * perClient * 3);
                for (int i = 0; i < back.length; i++) {
                    assertEquals((i / 3) % clients + 1, back[i], "byte " + (base + i));
                }
            }
        }
    }

    @Test
    void theTierDescribesItsFilesAndDeletesThemOnClose() throws IOException {
        Path data;
        Path tags;
        try (TestServer s = TestServer.start("disk", dir)) {
            data = Path.of(s.files().dataPath());
            tags = Path.of(s.files().tagPath());
            assertEquals(dir.toAbsolutePath(), data.getParent());
            assertTrue(data.getFileName().toString().matches("disk-" + s.info().port() + "-[0-9a-f]+\\.data"),
                    data.toString());
            assertEquals(data + ".tags", tags.toString());
            assertEquals(16L * BLOCK, Files.size(data), "the data file is preallocated");
            assertEquals(16, s.info().blockCount());
            assertEquals(0, s.files().dataOffset());
            assertTrue(s.info().localToken() != 0);
        }
        assertFalse(Files.exists(data), "data file deleted on close");
        assertFalse(Files.exists(tags), "tag file deleted on close");
    }

    @Test
    void aSizeBelowOneBlockIsAConfigurationError() {
        CreelException e = TestServer.startFailure("disk", dir, Map.of("creel.storage.disk.size", "512k"));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.storage.disk.size"), e.getMessage());
        CreelConf.of(Map.of()); // the defaults are still fine
    }

    private static void deleteTree(Path root) throws IOException {
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
