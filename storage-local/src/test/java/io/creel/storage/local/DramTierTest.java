package io.creel.storage.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.format.TagFile;
import io.creel.storage.local.tier.DiskTier;
import io.creel.storage.local.tier.DramTier;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
import io.creel.storage.spi.VolumeMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dram tier: its region file layout, its description, its memory, and start-up errors. */
class DramTierTest {
    @TempDir
    Path dir;

    @Test
    void theRegionFileHoldsTagsThenAlignedDataAndIsDeletedOnClose() throws IOException {
        Path file;
        try (TestServer s = TestServer.start("dram", dir, Map.of("creel.storage.dram.size", "16777300"))) {
            StorageServerInfo i = s.info();
            SameHostFiles f = s.files();
            file = Path.of(f.dataPath());
            assertEquals(16, i.blockCount(), "the size is rounded down to whole blocks");
            assertEquals(TestServer.BLOCK, i.blockSize());
            assertEquals(f.dataPath(), f.tagPath(), "one file holds tags and data");
            assertEquals(TagFile.TAG_OFFSET, f.tagOffset());
            assertEquals(0, f.dataOffset() % DramTier.DATA_ALIGNMENT, "data starts 2 MiB-aligned");
            assertTrue(f.dataOffset() >= TagFile.size(i.blockCount()), "data starts after the tag table");
            assertTrue(file.getFileName().toString().matches("dram-" + i.port() + "-[0-9a-f]+\\.region"), f.dataPath());
            assertEquals(f.dataOffset() + 16L * TestServer.BLOCK, Files.size(file));
            TagFile.Header h = TagFile.readHeader(file);
            assertEquals(i.localToken(), h.token());
            assertTrue(h.token() != 0);
            assertEquals(f.dataOffset(), h.dataOffset());
            assertEquals("dram", i.tier());
            assertEquals("dram", i.storageClass());
            assertEquals("localhost", i.host());
            assertEquals("test-host", i.hostId());
            assertTrue(i.port() > 0);
            assertTrue(s.service.summary().startsWith("dram: 16 blocks of 1.0 MiB"), s.service.summary());
        }
        assertFalse(Files.exists(file), "the region file is deleted on close");
    }

    @Test
    void aDramVolumeOffersItsBlocksAndTagsAsTheMemoryItServesFrom() throws IOException {
        CreelConf conf = TestServer.conf("dram", dir, Map.of("creel.storage.dram.size", "5m"));
        try (Volume v = new DramTier().open(new TierContext(conf, "dram", "localhost", "test-host", port -> 4242))) {
            VolumeMemory m = v.memory().orElseThrow();
            assertEquals(TestServer.BLOCK, m.blockSize());
            assertEquals(5, m.blockCount());
            assertEquals(1, m.segments().size(), "5 MiB fit one segment");
            assertTrue(m.segments().get(0).isDirect());
            assertEquals(5L * TestServer.BLOCK, m.segments().get(0).capacity());

            // The memory is the medium: bytes put there are what a read of the block returns ...
            byte[] bytes = TestServer.pattern(100, 3);
            m.segments().get(0).put(3 * TestServer.BLOCK + 17, bytes);
            ByteBuffer got = ByteBuffer.allocate(100);
            v.medium().read(3, 17, got);
            assertArrayEquals(bytes, got.array());
            // ... and the tag words are the tags the server claims and checks.
            v.tags().claimOrThrow(4, 77, "test");
            assertEquals(77, m.tags().order(ByteOrder.nativeOrder()).getLong(4 * 8));
        }
    }

    @Test
    void aDiskVolumeHasNoMemoryToOffer() throws IOException {
        CreelConf conf = TestServer.conf("disk", dir, Map.of("creel.storage.disk.size", "4m"));
        try (Volume v = new DiskTier().open(new TierContext(conf, "disk", "localhost", "test-host", port -> 4243))) {
            assertTrue(v.memory().isEmpty());
        }
    }

    @Test
    void twoServersInOneDirectoryGetTheirOwnFilesAndTokens() {
        try (TestServer a = TestServer.start("dram", dir); TestServer b = TestServer.start("dram", dir)) {
            assertFalse(a.files().dataPath().equals(b.files().dataPath()));
            assertFalse(a.info().localToken() == b.info().localToken());
        }
    }

    @Test
    void aSizeBelowOneBlockIsAConfigurationError() {
        CreelException e = TestServer.startFailure("dram", dir, Map.of("creel.storage.dram.size", "1000k"));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.storage.dram.size"), e.getMessage());
    }

    @Test
    void aPathThatCannotBeADirectoryIsAConfigurationError() throws IOException {
        Path plainFile = Files.writeString(dir.resolve("not-a-dir"), "x");
        CreelException e = TestServer.startFailure("dram", plainFile.resolve("sub"), Map.of());
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.storage.dram.path"), e.getMessage());
    }

    @Test
    void aMissingDirectoryIsCreated() {
        Path nested = dir.resolve("a/b");
        try (TestServer s = TestServer.start("dram", nested)) {
            assertTrue(Path.of(s.files().dataPath()).startsWith(nested.toAbsolutePath()));
        }
    }
}
