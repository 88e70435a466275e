package io.creel.storage.nvmf.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.NvmfException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SequentialAppenderTest {
    private static final int SECTOR = 512;

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void manySmallAppendsReadOnlyTheStartSectorOnceAndKeepTheBytesBeforeTheStart() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 256, 8 * SECTOR, true)) {
            byte[] model = new byte[256 * SECTOR];
            Arrays.fill(model, (byte) 0x5A);
            dev.fill(model);
            ByteRangeIo io = new ByteRangeIo(dev);
            long start = 700;
            SequentialAppender a = await(SequentialAppender.open(io, start, 200 * SECTOR));
            assertEquals(1, dev.reads.get(), "the sector holding an unaligned start is read once");
            Random rnd = new Random(11);
            long at = start;
            for (int i = 0; i < 400; i++) {
                byte[] chunk = new byte[1 + rnd.nextInt(300)];
                rnd.nextBytes(chunk);
                ByteBuffer src = ByteBuffer.wrap(chunk);
                await(a.append(src));
                assertEquals(chunk.length, src.position());
                System.arraycopy(chunk, 0, model, (int) at, chunk.length);
                at += chunk.length;
                if (i % 50 == 49) {
                    await(a.flush());
                }
            }
            await(a.flush());
            assertEquals(at, a.position());
            assertEquals(1, dev.reads.get(), "the staged tail sector is never read back");
            byte[] after = dev.snapshot();
            assertArrayEquals(Arrays.copyOfRange(model, 0, (int) at), Arrays.copyOfRange(after, 0, (int) at));
        }
    }

    @Test
    void anAlignedStartReadsNothingAndEachFullSectorIsWrittenOnceWithoutFlush() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 64, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            SequentialAppender a = await(SequentialAppender.open(io, 2 * SECTOR, 64 * SECTOR));
            for (int i = 0; i < 100; i++) {
                await(a.append(ByteBuffer.allocate(100)));
            }
            assertEquals(0, dev.reads.get());
            // 10000 bytes: 19 full sectors written, 272 bytes staged
            assertEquals(19L * SECTOR, dev.bytesWritten.get());
            await(a.flush());
            assertEquals(20L * SECTOR, dev.bytesWritten.get());
        }
    }

    @Test
    void flushWritesThePartialSectorAndLaterAppendsCompleteIt() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            SequentialAppender a = await(SequentialAppender.open(io, 0, 8 * SECTOR));
            byte[] first = new byte[100];
            Arrays.fill(first, (byte) 1);
            await(a.append(ByteBuffer.wrap(first)));
            assertEquals(0, dev.writes.get(), "a partial sector stays staged");
            await(a.flush());
            assertEquals(1, dev.snapshot()[99]);
            byte[] second = new byte[500];
            Arrays.fill(second, (byte) 2);
            await(a.append(ByteBuffer.wrap(second)));
            await(a.flush());
            byte[] after = dev.snapshot();
            assertEquals(1, after[99]);
            assertEquals(2, after[100]);
            assertEquals(2, after[599]);
            assertEquals(0, after[600]);
            assertEquals(0, dev.reads.get());
        }
    }

    @Test
    void aLaterWriteOfAFlushedSectorWaitsForTheFlushOfIt() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            SequentialAppender a = await(SequentialAppender.open(io, 0, 8 * SECTOR));
            dev.hold = true;
            byte[] first = new byte[100];
            Arrays.fill(first, (byte) 1);
            await(a.append(ByteBuffer.wrap(first)));
            CompletableFuture<Void> flushed = a.flush();
            List<MemoryDevice.Held> h1 = dev.takeHeld();
            assertEquals(1, h1.size());
            byte[] second = new byte[SECTOR - 100 + SECTOR];
            Arrays.fill(second, (byte) 2);
            ByteBuffer src = ByteBuffer.wrap(second);
            CompletableFuture<Void> appended = a.append(src);
            assertTrue(dev.takeHeld().isEmpty(), "the full sector is not written while its flush is in flight");
            h1.get(0).release();
            await(flushed);
            List<MemoryDevice.Held> h2 = dev.takeHeld();
            assertEquals(1, h2.size());
            assertSame(second, h2.get(0).buffers[1].array(), "the whole sector after it comes from the caller's buffer");
            h2.get(0).release();
            await(appended);
            byte[] after = dev.snapshot();
            assertEquals(1, after[99]);
            assertEquals(2, after[100]);
            assertEquals(2, after[2 * SECTOR - 1]);
        }
    }

    @Test
    void anAppendPastTheLimitIsRefusedAndBadRangesCannotBeOpened() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            SequentialAppender a = await(SequentialAppender.open(io, 0, 2 * SECTOR));
            await(a.append(ByteBuffer.allocate(2 * SECTOR - 1)));
            ByteBuffer tooMuch = ByteBuffer.allocate(2);
            ExecutionException e = assertThrows(ExecutionException.class, () -> a.append(tooMuch).get());
            assertEquals(NvmfException.Kind.INVALID_ARGUMENT, NvmfException.find(e).kind());
            assertEquals(0, tooMuch.position());
            for (long[] bad : new long[][] {{-1, SECTOR}, {0, 100}, {SECTOR, 0}, {0, 9 * SECTOR}}) {
                ExecutionException b = assertThrows(ExecutionException.class,
                        () -> SequentialAppender.open(io, bad[0], bad[1]).get());
                assertEquals(NvmfException.Kind.INVALID_ARGUMENT, NvmfException.find(b).kind());
            }
        }
    }

    @Test
    void aFailedWriteIsReportedByFlush() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            SequentialAppender a = await(SequentialAppender.open(io, 0, 8 * SECTOR));
            dev.failAtSector = 1;
            assertThrows(ExecutionException.class, () -> a.append(ByteBuffer.allocate(3 * SECTOR)).get());
            ExecutionException e = assertThrows(ExecutionException.class, () -> a.flush().get());
            assertTrue(NvmfException.find(e).getMessage().contains("sector 1"));
        }
    }
}
