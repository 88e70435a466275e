package io.creel.storage.local.tier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing zeros over a new region's data area, and the error when the file system is too small. */
class PreallocationTest {
    @TempDir
    Path dir;

    @Test
    void aSparseFileGetsItsPagesAndStaysZero() throws IOException, InterruptedException {
        Path f = dir.resolve("region");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(8L << 20);
            raf.seek(100);
            raf.write(7); // the header area before the data offset is left alone
        }
        long before = allocatedBytes(f);
        Preallocation.fill(f, 1 << 20, 7L << 20);
        assertTrue(allocatedBytes(f) >= before + (7L << 20), "the data area's pages exist now");
        byte[] all = Files.readAllBytes(f);
        assertEquals(8 << 20, all.length, "the file keeps its size");
        assertEquals(7, all[100]);
        for (int i = 1 << 20; i < all.length; i += 4093) {
            assertEquals(0, all[i], "byte " + i);
        }
    }

    @Test
    void aFileSystemWithoutRoomFailsTheStartNamingTheKeys() {
        Path full = Path.of("/dev/full"); // every write fails with ENOSPC
        if (!Files.isWritable(full)) {
            return; // not a Linux host: nothing to write to that refuses for lack of space
        }
        CreelException e = assertThrows(CreelException.class, () -> Preallocation.fill(full, 0, 3L << 20));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.storage.dram.size") && e.getMessage().contains(
                "creel.storage.dram.preallocate") && e.getMessage().contains("/dev/full"), e.getMessage());
    }

    /** Bytes the file system has allocated to {@code f} (stat's block count). */
    private static long allocatedBytes(Path f) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("stat", "-c", "%b %B", f.toString()).redirectErrorStream(true).start();
        String[] out = new String(p.getInputStream().readAllBytes()).trim().split(" ");
        assertTrue(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", out));
        return Long.parseLong(out[0]) * Long.parseLong(out[1]);
    }
}
