package io.creel.storage.nvmf.io;

import io.creel.storage.nvmf.NvmfException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link SectorDevice} in memory for tests: checks every request the way a namespace does, counts
 * commands, can complete asynchronously on its own thread, can hold commands until the test releases
 * them (to force an order), and can fail chosen commands.
 */
final class MemoryDevice implements SectorDevice, AutoCloseable {
    /** A command the device holds until released. */
    final class Held {
        final boolean write;
        final long sector;
        final ByteBuffer[] buffers;
        final CompletableFuture<Void> future = new CompletableFuture<>();

        Held(boolean write, long sector, ByteBuffer[] buffers) {
            this.write = write;
            this.sector = sector;
            this.buffers = buffers;
        }

        void release() {
            apply(write, sector, buffers);
            future.complete(null);
        }
    }

    private final int sectorSize;
    private final long sectorCount;
    private final int maxTransfer;
    private final byte[] bytes;
    private final ExecutorService async;
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger writes = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    final AtomicLong bytesWritten = new AtomicLong();
    final List<Held> held = new ArrayList<>();
    volatile boolean hold;
    /** Fail the command that covers this sector (-1: none). */
    volatile long failAtSector = -1;

    MemoryDevice(int sectorSize, long sectorCount, int maxTransfer, boolean asynchronous) {
        this.sectorSize = sectorSize;
        this.sectorCount = sectorCount;
        this.maxTransfer = maxTransfer;
        this.bytes = new byte[Math.toIntExact(sectorSize * sectorCount)];
        this.async = asynchronous ? Executors.newFixedThreadPool(2) : null;
    }

    @Override
    public int sectorSize() {
        return sectorSize;
    }

    @Override
    public long sectorCount() {
        return sectorCount;
    }

    @Override
    public int maxTransferBytes() {
        return maxTransfer;
    }

    @Override
    public String describe() {
        return "memory device";
    }

    @Override
    public CompletableFuture<Void> read(long sector, ByteBuffer... dst) {
        reads.incrementAndGet();
        return submit(false, sector, dst);
    }

    @Override
    public CompletableFuture<Void> write(long sector, ByteBuffer... src) {
        writes.incrementAndGet();
        return submit(true, sector, src);
    }

    private CompletableFuture<Void> submit(boolean write, long sector, ByteBuffer[] buffers) {
        long total = 0;
        for (ByteBuffer b : buffers) {
            total += b.remaining();
        }
        if (total == 0 || total % sectorSize != 0 || total > maxTransfer || sector < 0
                || sector + total / sectorSize > sectorCount) {
            return CompletableFuture.failedFuture(new NvmfException(NvmfException.Kind.INVALID_ARGUMENT,
                    "bad request: sector " + sector + ", " + total + " bytes"));
        }
        long f = failAtSector;
        if (f >= sector && f < sector + total / sectorSize) {
            return CompletableFuture.failedFuture(new NvmfException(NvmfException.Kind.TIMEOUT,
                    "injected failure at sector " + f));
        }
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        if (hold) {
            Held h = new Held(write, sector, buffers);
            synchronized (held) {
                held.add(h);
            }
            return h.future.whenComplete((v, e) -> inFlight.decrementAndGet());
        }
        if (async == null) {
            apply(write, sector, buffers);
            inFlight.decrementAndGet();
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.runAsync(() -> {
            apply(write, sector, buffers);
            inFlight.decrementAndGet();
        }, async);
    }

    private void apply(boolean write, long sector, ByteBuffer[] buffers) {
        synchronized (bytes) {
            int at = (int) (sector * sectorSize);
            for (ByteBuffer b : buffers) {
                int n = b.remaining();
                if (write) {
                    b.duplicate().get(bytes, at, n);
                    bytesWritten.addAndGet(n);
                } else {
                    b.duplicate().put(bytes, at, n);
                }
                at += n;
            }
        }
    }

    List<Held> takeHeld() {
        synchronized (held) {
            List<Held> out = new ArrayList<>(held);
            held.clear();
            return out;
        }
    }

    byte[] snapshot() {
        synchronized (bytes) {
            return bytes.clone();
        }
    }

    void fill(byte[] content) {
        synchronized (bytes) {
            System.arraycopy(content, 0, bytes, 0, content.length);
        }
    }

    @Override
    public void close() {
        if (async != null) {
            async.shutdownNow();
        }
    }
}
