package io.creel.namenode.persistence;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.creel.common.error.CreelException;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.NamespaceImage;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.MemoryBlocks;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The namenode's log and checkpoint reader given hostile files: record bodies chosen by the fuzzer,
 * framed with their true lengths and checksums (so the fuzzer reaches the record decoder behind the
 * checksum), then sometimes cut or followed by raw bytes. Reading either restores records or stops
 * with a CreelException naming the offset; anything else — an index out of bounds, a null, a loop —
 * is a finding.
 */
class LogReaderFuzzTest {
    private static final long BLOCK = 64 << 10;
    private static final Path FILE = tempFile();

    private static Path tempFile() {
        try {
            Path f = Files.createTempFile("creel-log-fuzz", ".log");
            f.toFile().deleteOnExit();
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "15s")
    void aHostileLogIsRestoredOrRefusedAsCorrupt(FuzzedDataProvider data) throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int records = data.consumeInt(0, 8);
        for (int i = 0; i < records && data.remainingBytes() > 0; i++) {
            byte[] body = data.consumeBytes(data.consumeInt(1, 512));
            CRC32C crc = new CRC32C();
            crc.update(body);
            log.write(ByteBuffer.allocate(LogFormat.FRAME_HEADER).putInt(body.length).putInt((int) crc.getValue())
                    .array());
            log.write(body);
        }
        boolean tornTailAllowed = data.consumeBoolean();
        log.write(data.consumeRemainingAsBytes());
        Files.write(FILE, log.toByteArray());

        ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), BLOCK, 60_000, System::currentTimeMillis);
        BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, 0, System::currentTimeMillis);
        Namespace ns = new Namespace(allocator, new MemoryBlocks(), BLOCK, 0, System::currentTimeMillis);
        try {
            LogReader.read(FILE, new NamespaceImage.Rebuilder(ns), tornTailAllowed);
        } catch (CreelException refused) {
            // corrupt at an offset: the namenode refuses to start with it, saying where
        }
    }
}
