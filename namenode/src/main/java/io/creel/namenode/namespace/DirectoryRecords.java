package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.protocol.BlockLocation;
import io.creel.namenode.records.RecordStore;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The directory records of enumerable containers: which record slot each child holds, and the
 * writes that put its record into the container's data (or clear it). Writes to one slot leave in
 * the order they are issued and are chained, so they also complete in order; a freed slot is reused
 * only after the reuse delay, so a listing in progress never sees a slot change owner under it.
 *
 * <p>The container's blocks must exist before a record is written (the namespace allocates them,
 * since it logs every allocation). Called under the namespace lock; the writes complete later.
 */
final class DirectoryRecords {
    private record SlotKey(long containerId, int slot) {
    }

    private final RecordStore store;
    private final long blockSize;
    private final ReuseQueue reuse;
    private final ConcurrentHashMap<SlotKey, CompletableFuture<Void>> lastWrite = new ConcurrentHashMap<>();

    DirectoryRecords(RecordStore store, long blockSize, ReuseQueue reuse) {
        this.store = store;
        this.blockSize = blockSize;
        this.reuse = reuse;
    }

    /** The index, in the container's data, of the block holding record {@code slot}. */
    long blockIndexOf(int slot) {
        return (long) slot * DirectoryRecord.SIZE / blockSize;
    }

    /** The slot the next child of {@code container} would take. */
    int nextSlot(Container container) {
        return container.slots().peek();
    }

    /** Takes the lowest reusable slot of {@code container} (or a new one). */
    int take(Container container) {
        return container.slots().take();
    }

    /** Gives back a slot taken whose record was never written. */
    void untake(Container container, int slot) {
        container.slots().untake(slot);
    }

    /**
     * Writes {@code child}'s record into its slot of {@code container}; the container's readable
     * length covers the slot once the write has completed (before the returned future completes).
     */
    CompletableFuture<Void> write(Container container, Node child) {
        int slot = child.slot;
        return writeSlot(container, slot, DirectoryRecord.toBuffer(child.type, child.id, child.name))
                .thenRun(() -> container.recordWritten(slot));
    }

    /** Clears {@code child}'s record and frees its slot (reusable after the delay); the child keeps no slot. */
    CompletableFuture<Void> free(Container container, Node child) {
        int slot = child.slot;
        child.slot = -1;
        if (container == null || !container.enumerable || slot < 0) {
            return CompletableFuture.completedFuture(null);
        }
        return clear(container, slot);
    }

    /** Clears record {@code slot} of {@code container} and frees the slot (reusable after the delay). */
    CompletableFuture<Void> clear(Container container, int slot) {
        container.slots().free(slot);
        reuse.later(() -> container.slots().release(slot));
        return writeSlot(container, slot, DirectoryRecord.cleared());
    }

    /** Writes one record, after any earlier write to the same slot has finished. */
    private CompletableFuture<Void> writeSlot(Container container, int slot, ByteBuffer record) {
        long pos = (long) slot * DirectoryRecord.SIZE;
        int index = (int) (pos / blockSize);
        int offset = (int) (pos % blockSize);
        BlockLocation where = container.block(index).at(container.id, index);
        SlotKey key = new SlotKey(container.id, slot);
        CompletableFuture<Void> previous = lastWrite.get(key);
        CompletableFuture<Void> next = previous == null ? issue(where, offset, record)
                : previous.handle((v, e) -> null).thenCompose(x -> issue(where, offset, record));
        lastWrite.put(key, next);
        next.whenComplete((v, e) -> lastWrite.remove(key, next));
        return next;
    }

    private CompletableFuture<Void> issue(BlockLocation where, int offset, ByteBuffer record) {
        try {
            return store.write(where, offset, record);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The error of a change undone because its record could not be written. */
    static CreelException failure(String path, Throwable err) {
        CreelException cause = CreelException.unwrap(err);
        return new CreelException(cause.code(), path + ": its directory record could not be written, so the "
                + "change was undone: " + cause.getMessage(), cause);
    }
}
