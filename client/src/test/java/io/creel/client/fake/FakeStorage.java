package io.creel.client.fake;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.testkit.FakeServer;
import io.creel.storage.testkit.MemoryVolume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory storage server for tests: its blocks are the test kit's {@link MemoryVolume} (the
 * real tag rule), with optional delay and injected failures, and counters of what clients did.
 * Reached through {@link FakeStorageTransport} (tier "fake"), found by its port in a registry.
 */
public final class FakeStorage implements FakeServer {
    /** Where transfers (and the fake namenode's delayed answers) run when they do not run at once. */
    static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "fake-transport");
        t.setDaemon(true);
        return t;
    });

    private static final AtomicInteger PORTS = new AtomicInteger(40000);
    private static final Map<Integer, FakeStorage> REGISTRY = new ConcurrentHashMap<>();

    /** One BLOCK_WRITE as the server saw it. */
    public record Write(long blockNumber, int offset, int length) {
    }

    private final StorageServerInfo info;
    private final int blockSize;
    private final MemoryVolume volume;
    private final AtomicLong nextBlock = new AtomicLong();
    private final AtomicLong nextTag = new AtomicLong(System.currentTimeMillis() << 20);
    public final AtomicInteger readsInFlight = new AtomicInteger();
    public final AtomicInteger maxReadsInFlight = new AtomicInteger();
    public final AtomicInteger reads = new AtomicInteger();
    public final List<Write> writes = new CopyOnWriteArrayList<>();
    public volatile long delayMillis;
    /** Transfers complete on the caller's thread, before the transport returns (as a same-host one does). */
    public volatile boolean synchronous;
    public volatile ErrorCode failReads;
    public volatile ErrorCode failWrites;
    /**
     * Decides each write when it runs (it may block, as a slow server would): {@code true} lets it
     * through, {@code false} fails it as if the server could not be reached.
     */
    public interface WriteGate {
        boolean admit(long block, int offset) throws InterruptedException;
    }

    /** Consulted by every write, if set. */
    public volatile WriteGate writeGate;
    /** Blocks whose writes fail as if their server could not be reached (UNAVAILABLE). */
    public final java.util.Set<Long> unreachable = ConcurrentHashMap.newKeySet();
    /** Called when a read starts (for overlap probes). */
    public volatile Runnable onReadStart = () -> { };

    public FakeStorage(int blockSize, long blockCount) {
        int port = PORTS.incrementAndGet();
        this.blockSize = blockSize;
        this.info = StorageServerInfo.of(1, "fake", "dram", "fake-host", port, "fake-machine", blockCount, blockSize,
                port * 31L, java.util.Map.of());
        this.volume = MemoryVolume.of(info);
        REGISTRY.put(port, this);
    }

    static FakeStorage byPort(int port) {
        return REGISTRY.get(port);
    }

    public StorageServerInfo info() {
        return info;
    }

    public int blockSize() {
        return blockSize;
    }

    /** Hands out a fresh block with a new tag (what a namenode's allocator does). */
    public long[] allocate() {
        long b = nextBlock.getAndIncrement();
        if (b >= info.blockCount()) {
            throw new CreelException(ErrorCode.OUT_OF_SPACE, "fake storage is full");
        }
        long tag = nextTag.incrementAndGet();
        volume.reallocate(b, tag);
        return new long[] {b, tag};
    }

    public long usedBlocks() {
        return nextBlock.get();
    }

    /** Writes directly, as the namenode does for directory records. */
    public void put(long block, long tag, int offset, ByteBuffer src) {
        volume.write(new BlockLocation(0, 0, info, block, tag), offset, src);
    }

    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        int now = readsInFlight.incrementAndGet();
        maxReadsInFlight.accumulateAndGet(now, Math::max);
        reads.incrementAndGet();
        onReadStart.run();
        return later(() -> {
            try {
                read(block.blockNumber(), block.tag(), offset, dst);
            } finally {
                readsInFlight.decrementAndGet();
            }
        });
    }

    @Override
    public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        return later(() -> write(block.blockNumber(), block.tag(), offset, src));
    }

    /** Runs a transfer as this server answers: at once, after its delay, or on the timer's threads. */
    private CompletableFuture<Void> later(Runnable r) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                r.run();
                f.complete(null);
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        };
        long d = delayMillis;
        if (synchronous) {
            task.run();
        } else if (d > 0) {
            TIMER.schedule(task, d, TimeUnit.MILLISECONDS);
        } else {
            TIMER.execute(task);
        }
        return f;
    }

    private void read(long block, long tag, int offset, ByteBuffer dst) {
        if (failReads != null) {
            throw new CreelException(failReads, "injected read failure on fake block " + block);
        }
        volume.read(new BlockLocation(0, 0, info, block, tag), offset, dst);
    }

    private void write(long block, long tag, int offset, ByteBuffer src) {
        if (failWrites != null) {
            throw new CreelException(failWrites, "injected write failure on fake block " + block);
        }
        WriteGate gate = writeGate;
        try {
            if (gate != null && !gate.admit(block, offset)) {
                throw new io.creel.storage.spi.ServerNotServing("fake block " + block + "'s server cannot be reached");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.INTERNAL, "interrupted at the write gate");
        }
        if (unreachable.contains(block)) {
            throw new io.creel.storage.spi.ServerNotServing("fake block " + block + "'s server cannot be reached");
        }
        writes.add(new Write(block, offset, src.remaining()));
        put(block, tag, offset, src);
    }

    /** Reallocates a block's tag, making every location handed out for it stale. */
    public void retag(long block) {
        volume.reallocate(block, nextTag.incrementAndGet());
    }
}
