package io.creel.client.fake;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory storage server for tests: blocks in byte arrays, tag checks like a real server,
 * optional delay and injected failures, and counters of what clients did. Reached through
 * {@link FakeTransportProvider} (tier "fake"), found by its port in a registry.
 */
public final class FakeStorage {
    private static final AtomicInteger PORTS = new AtomicInteger(40000);
    private static final Map<Integer, FakeStorage> REGISTRY = new ConcurrentHashMap<>();

    /** One BLOCK_WRITE as the server saw it. */
    public record Write(long blockNumber, int offset, int length) {
    }

    private final StorageServerInfo info;
    private final int blockSize;
    private final Map<Long, byte[]> blocks = new ConcurrentHashMap<>();
    private final Map<Long, Long> tags = new ConcurrentHashMap<>();
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
        tags.put(b, tag);
        blocks.put(b, new byte[blockSize]);
        return new long[] {b, tag};
    }

    public long usedBlocks() {
        return nextBlock.get();
    }

    /** Writes directly, as the namenode does for directory records. */
    public void put(long block, long tag, int offset, ByteBuffer src) {
        check(block, tag, offset, src.remaining());
        src.get(blocks.get(block), offset, src.remaining());
    }

    void read(long block, long tag, int offset, ByteBuffer dst) {
        if (failReads != null) {
            throw new CreelException(failReads, "injected read failure on fake block " + block);
        }
        check(block, tag, offset, dst.remaining());
        dst.put(blocks.get(block), offset, dst.remaining());
    }

    void write(long block, long tag, int offset, ByteBuffer src) {
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

    private void check(long block, long tag, int offset, int length) {
        Long t = tags.get(block);
        if (t == null || t != tag) {
            throw new CreelException(ErrorCode.STALE_BLOCK, "fake block " + block + " has tag " + t + ", not " + tag);
        }
        if (offset < 0 || offset + length > blockSize) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "range " + offset + "+" + length
                    + " exceeds block size " + blockSize);
        }
    }

    /** Reallocates a block's tag, making every location handed out for it stale. */
    public void retag(long block) {
        tags.put(block, nextTag.incrementAndGet());
    }
}
