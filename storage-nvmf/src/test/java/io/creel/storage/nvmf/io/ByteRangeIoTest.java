package io.creel.storage.nvmf.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.NvmfException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ByteRangeIoTest {
    private static final int SECTOR = 512;

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static NvmfException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        NvmfException n = NvmfException.find(e);
        assertTrue(n != null, "expected an NvmfException, got " + e.getCause());
        return n;
    }

    @Test
    void writesAndReadsOfEveryAlignmentBehaveLikeAFlatByteArray() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 64, 4 * SECTOR, true)) {
            ByteRangeIo io = new ByteRangeIo(dev, 3);
            Random rnd = new Random(7);
            byte[] model = new byte[64 * SECTOR];
            rnd.nextBytes(model);
            dev.fill(model);
            long[] offsets = {0, 1, 255, 511, 512, 513, 1023, 1024, 2047, 2049, 5000};
            int[] lengths = {0, 1, 2, 511, 512, 513, 1024, 1535, 2048, 2049, 4097, 6000, 9000};
            for (long off : offsets) {
                for (int len : lengths) {
                    byte[] data = new byte[len];
                    rnd.nextBytes(data);
                    // the caller's bytes sit at position 3 of a larger buffer
                    ByteBuffer src = ByteBuffer.allocate(len + 10).position(3).limit(3 + len);
                    src.duplicate().put(data);
                    await(io.write(off, src));
                    assertEquals(3 + len, src.position(), "write moves the position past the bytes written");
                    System.arraycopy(data, 0, model, (int) off, len);
                    assertArrayEquals(model, dev.snapshot(), "device after write of " + len + " at " + off);

                    ByteBuffer dst = ByteBuffer.allocate(len + 10).position(5).limit(5 + len);
                    await(io.read(off, dst));
                    assertEquals(5 + len, dst.position());
                    byte[] back = new byte[len];
                    dst.flip().position(5);
                    dst.get(back);
                    assertArrayEquals(data, back, "read of " + len + " at " + off);
                }
            }
            assertEquals(0, io.lockedSectors(), "no sector stays locked");
        }
    }

    @Test
    void aRangeInsideOneSectorIsOneReadAndForAWriteOneReadPlusOneWrite() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 16, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            await(io.read(100, ByteBuffer.allocate(50)));
            assertEquals(1, dev.reads.get());
            await(io.write(100, ByteBuffer.allocate(50)));
            assertEquals(2, dev.reads.get());
            assertEquals(1, dev.writes.get());
        }
    }

    @Test
    void anUnalignedReadIsOneCommandWhenItFitsTheLargestTransfer() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 16, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            // touches sectors 0..4: head bounce, three whole sectors into the caller's buffer, tail bounce
            await(io.read(100, ByteBuffer.allocate(4 * SECTOR)));
            assertEquals(1, dev.reads.get());
        }
    }

    @Test
    void largeTransfersAreCutIntoCommandsOfAtMostTheLargestTransferWithABoundedWindow() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 1024, 8 * SECTOR, true)) {
            ByteRangeIo io = new ByteRangeIo(dev, 3);
            byte[] data = new byte[300 * SECTOR];
            new Random(3).nextBytes(data);
            await(io.write(0, ByteBuffer.wrap(data)));
            assertEquals((300 + 7) / 8, dev.writes.get());
            assertTrue(dev.maxInFlight.get() <= 3, "at most 3 commands in flight, saw " + dev.maxInFlight.get());
            ByteBuffer back = ByteBuffer.allocate(data.length);
            await(io.read(0, back));
            assertArrayEquals(data, back.array());
        }
    }

    @Test
    void wholeSectorsOfAnAlignedWriteGoToTheDeviceFromTheCallersBuffer() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 16, 8 * SECTOR, false)) {
            dev.hold = true;
            ByteRangeIo io = new ByteRangeIo(dev);
            ByteBuffer src = ByteBuffer.allocate(4 * SECTOR);
            CompletableFuture<Void> f = io.write(SECTOR, src);
            List<MemoryDevice.Held> held = dev.takeHeld();
            assertEquals(1, held.size());
            assertSame(src.array(), held.get(0).buffers[0].array(), "no copy of the caller's bytes");
            held.forEach(MemoryDevice.Held::release);
            await(f);
        }
    }

    @Test
    void concurrentWritesToDifferentBytesOfOneSectorAllSurvive() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, true)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            List<CompletableFuture<Void>> all = new ArrayList<>();
            // 3 bytes each at a stride of 5: writes share sectors 0..2, touch distinct bytes
            for (int i = 0; i < 300; i++) {
                all.add(io.write(i * 5L, ByteBuffer.wrap(new byte[] {(byte) (i + 1), (byte) (i + 1), (byte) (i + 1)})));
            }
            await(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)));
            byte[] after = dev.snapshot();
            for (int i = 0; i < 300; i++) {
                for (int k = 0; k < 3; k++) {
                    assertEquals((byte) (i + 1), after[i * 5 + k], "byte " + (i * 5 + k) + " of write " + i);
                }
                assertEquals(0, after[i * 5 + 3]);
            }
            assertEquals(0, io.lockedSectors());
        }
    }

    @Test
    void aFailedCommandFailsTheCallOnlyAfterTheOthersFinishedAndLeavesThePosition() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 256, 4 * SECTOR, true)) {
            ByteRangeIo io = new ByteRangeIo(dev, 4);
            dev.failAtSector = 100;
            ByteBuffer dst = ByteBuffer.allocate(200 * SECTOR);
            CompletableFuture<Void> f = io.read(0, dst);
            NvmfException e = failure(f);
            assertEquals(NvmfException.Kind.TIMEOUT, e.kind());
            assertTrue(e.getMessage().contains("sector 100"), e.getMessage());
            assertEquals(0, dev.inFlight.get(), "no command still uses the caller's buffer");
            assertEquals(0, dst.position());
        }
    }

    @Test
    void aFailedReadModifyWriteReleasesItsSectorLock() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, true)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            dev.failAtSector = 1;
            ByteBuffer src = ByteBuffer.allocate(10);
            failure(io.write(SECTOR + 5, src));
            assertEquals(0, src.position());
            dev.failAtSector = -1;
            await(io.write(SECTOR + 5, ByteBuffer.wrap(new byte[] {9})));
            assertEquals(9, dev.snapshot()[SECTOR + 5]);
            assertEquals(0, io.lockedSectors());
        }
    }

    @Test
    void rangesOutsideTheDeviceAreRefusedWithTheirNumbers() throws Exception {
        try (MemoryDevice dev = new MemoryDevice(SECTOR, 8, 8 * SECTOR, false)) {
            ByteRangeIo io = new ByteRangeIo(dev);
            NvmfException e = failure(io.read(8 * SECTOR - 10, ByteBuffer.allocate(11)));
            assertEquals(NvmfException.Kind.INVALID_ARGUMENT, e.kind());
            assertTrue(e.getMessage().contains("11 bytes at byte 4086") && e.getMessage().contains("memory device"),
                    e.getMessage());
            assertEquals(NvmfException.Kind.INVALID_ARGUMENT, failure(io.write(-1, ByteBuffer.allocate(1))).kind());
            assertEquals(NvmfException.Kind.INVALID_ARGUMENT,
                    failure(io.write(Long.MAX_VALUE, ByteBuffer.allocate(1))).kind());
            assertEquals(0, dev.reads.get() + dev.writes.get(), "nothing reached the device");
            // an empty transfer at the very end is fine
            await(io.read(8 * SECTOR, ByteBuffer.allocate(0)));
        }
    }

    @Test
    void aDeviceWhoseLargestTransferIsBelowASectorIsRefused() {
        try (MemoryDevice dev = new MemoryDevice(4096, 8, 512, false)) {
            assertThrows(IllegalArgumentException.class, () -> new ByteRangeIo(dev));
        }
        try (MemoryDevice dev = new MemoryDevice(512, 8, 4096, false)) {
            assertThrows(IllegalArgumentException.class, () -> new ByteRangeIo(dev, 0));
        }
    }
}
