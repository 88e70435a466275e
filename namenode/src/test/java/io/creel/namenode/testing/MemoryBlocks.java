package io.creel.namenode.testing;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.protocol.BlockLocation;
import io.creel.namenode.records.RecordStore;
import io.creel.storage.testkit.FakeServer;
import io.creel.storage.testkit.MemoryVolume;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Blocks held in memory, one test-kit {@link MemoryVolume} per storage server address, so writes
 * follow the storage servers' tag rule (a write claims the block for its tag and is refused if a
 * newer tag owns it). Serves as the namespace tests' record store and behind the "memory" test
 * transport.
 */
public final class MemoryBlocks implements RecordStore, FakeServer {
    /** The instance behind {@link MemoryTransportProvider}. */
    public static final MemoryBlocks SHARED = new MemoryBlocks();

    private final Map<String, MemoryVolume> volumes = new HashMap<>();
    private volatile boolean failing;
    /** Servers (host:port) whose blocks cannot be reached. */
    private final java.util.Set<String> unreachable = new java.util.HashSet<>();
    private int writes;
    /** Server (host:port) -> writes it takes before one fails as unreachable (once). */
    private final Map<String, Integer> failOnceAfter = new HashMap<>();

    /** Makes every later write fail (true) or succeed (false). */
    public void failWrites(boolean fail) {
        failing = fail;
    }

    /** Makes every later write to a block of the server at {@code address} (host:port) fail as unreachable. */
    public synchronized void unreachable(String address) {
        unreachable.add(address);
    }

    /** The write to the server at {@code address} after its next {@code okWrites} fails once, as unreachable. */
    public synchronized void failOnceAfter(String address, int okWrites) {
        failOnceAfter.put(address, okWrites);
    }

    public synchronized int writes() {
        return writes;
    }

    @Override
    public synchronized CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
        if (failing) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE,
                    "memory block store is failing writes on purpose"));
        }
        Integer ok = failOnceAfter.get(block.server().address());
        if (ok != null) {
            if (ok == 0) {
                failOnceAfter.remove(block.server().address());
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "storage server "
                        + block.server().address() + " cannot be reached this once (memory block store, on purpose)"));
            }
            failOnceAfter.put(block.server().address(), ok - 1);
        }
        if (unreachable.contains(block.server().address())) {
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNAVAILABLE, "storage server "
                    + block.server().address() + " cannot be reached (memory block store, on purpose)"));
        }
        try {
            volumes.computeIfAbsent(block.server().address(), a -> MemoryVolume.of(block.server()))
                    .write(block, offset, src);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
        writes++;
        return CompletableFuture.completedFuture(null);
    }

    /** The namenode never reads blocks through a transport; only {@link #record} reads them back. */
    @Override
    public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
        throw new UnsupportedOperationException("the namenode only writes records");
    }

    /** The record at {@code slot} of a container whose block holding that slot is {@code block}. */
    public synchronized DirectoryRecord record(BlockLocation block, int slot) {
        MemoryVolume v = volumes.get(block.server().address());
        if (v == null || block.tag() == 0 || !v.tags().matches(block.blockNumber(), block.tag())) {
            return null;
        }
        int offset = (int) ((long) slot * DirectoryRecord.SIZE % block.server().blockSize());
        return DirectoryRecord.readFrom(ByteBuffer.wrap(v.get(block.blockNumber(), offset, DirectoryRecord.SIZE)));
    }
}
