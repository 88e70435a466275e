package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.allocation.RegionShortage;
import io.creel.namenode.records.RecordStore;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory records of enumerable containers: which record slot each child holds, and the
 * writes that put its record into the container's data (or clear it). Writes to one slot leave in
 * the order they are issued and are chained, so they also complete in order; a freed slot is reused
 * only after the reuse delay, so a listing in progress never sees a slot change owner under it.
 *
 * <p>The container's blocks must exist before a record is written (the namespace allocates them,
 * since it logs every allocation). Called under the namespace lock; the writes complete later.
 *
 * <p>This class is also the one owner of moving a records block off a storage server that is dead
 * (the registry says so) or that a record write could not reach: records are a copy the namespace
 * can derive at any time (it knows every child and its slot), so a new block is allocated on a live
 * server, written with every record of the old one from the namespace's state, and only then made
 * the container's block (and logged). Until that swap readers are still given the old block, whose
 * server fails them with an error naming it, rather than a half-written new one. A write that could
 * not reach its server is tried once more after the move.
 */
final class DirectoryRecords {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryRecords.class);

    private record SlotKey(long containerId, int slot) {
    }

    private record BlockKey(long containerId, int index) {
    }

    /**
     * Records block {@code index} on its way from {@code from} to {@code to}; {@code done} once swapped
     * (or failed). {@code names} it holds; its listing has failed since {@code unlistedSince} (the
     * old server's last heartbeat, wall clock).
     */
    private record Move(int index, AllocatedBlock from, AllocatedBlock to, CompletableFuture<Void> done, long names,
                        long unlistedSince) {
    }

    /**
     * A records block that was moved off a server that died or could not be reached: for fsck, which
     * says what the server took along (the container's listing, for {@code unlistedMillis}).
     */
    record Moved(Container container, StorageServerInfo from, StorageServerInfo to, long names, long unlistedMillis) {
    }

    /** Most moves {@link #moved()} remembers: fsck reports the recent ones. */
    static final int MOVES_KEPT = 1_000;

    private final RecordStore store;
    private final long blockSize;
    private final ReuseQueue reuse;
    private final BlockAllocator allocator;
    /** The namespace lock: guards the nodes, {@link #moving}, and the log. */
    private final Object lock;
    private final Supplier<NamespaceLog> log;
    private final java.util.function.LongSupplier clock;
    /** The latest {@link #MOVES_KEPT} moves, oldest first; guarded by {@link #lock}. */
    private final java.util.ArrayDeque<Moved> moved = new java.util.ArrayDeque<>();
    private final ConcurrentHashMap<SlotKey, CompletableFuture<Void>> lastWrite = new ConcurrentHashMap<>();
    /** Records blocks being moved to another server; guarded by {@link #lock}. */
    private final HashMap<BlockKey, Move> moving = new HashMap<>();

    /**
     * @param allocator where a moved records block gets its new place
     * @param lock      the namespace's lock (taken when a write or a move completes)
     * @param log       the namespace's log as it is now (a moved block is logged there)
     */
    DirectoryRecords(RecordStore store, long blockSize, ReuseQueue reuse, BlockAllocator allocator, Object lock,
                     Supplier<NamespaceLog> log, java.util.function.LongSupplier clock) {
        this.clock = clock;
        this.store = store;
        this.blockSize = blockSize;
        this.reuse = reuse;
        this.allocator = allocator;
        this.lock = lock;
        this.log = log;
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

    /**
     * Makes sure records block {@code index} of {@code container} can take writes: if its server is
     * dead, its move to a live server starts now. Throws with nothing changed when no live server
     * has a free block ({@link io.creel.namenode.allocation.RegionShortage} when one may still grant
     * a region), so a create can fail (or ask for a region) before it changes anything.
     */
    void ensureWritable(Container container, int index) {
        if (container.state == Node.State.LIVE && !moving.containsKey(new BlockKey(container.id, index))
                && !allocator.isLive(container.block(index).server())) {
            move(container, index, "is dead");
        }
    }

    /**
     * A server was declared dead: if records block {@code index} of {@code container} is on it, its
     * move to a live server starts now rather than at the next write into the container, so listings
     * work again without one. Returns whether a move started; one that cannot (no free block on a
     * live server) is logged and left to the next write. Under the lock.
     *
     * @throws RegionShortage with nothing changed, when a region must be granted first
     */
    boolean moveOffDead(Container container, int index) {
        StorageServerInfo server = container.block(index).server();
        boolean draining = allocator.isDraining(server);
        if (container.state != Node.State.LIVE || !container.enumerable || moving.containsKey(
                new BlockKey(container.id, index)) || allocator.isLive(server) && !draining) {
            return false;
        }
        try {
            move(container, index, draining ? "is draining" : "was declared dead");
            return true;
        } catch (RegionShortage e) {
            throw e;
        } catch (CreelException e) {
            LOG.warn("{}: directory records block {} stays on dead storage server {} for now (its listing fails until "
                    + "the next write into it moves it): {}", container.path(), index,
                    container.block(index).server().address(), e.getMessage());
            return false;
        }
    }

    /** Whether records block {@code index} of {@code container} is being moved now. Under the lock. */
    boolean isMoving(Container container, int index) {
        return moving.containsKey(new BlockKey(container.id, index));
    }

    /** The names records block {@code index} of {@code c} holds. Under the lock. */
    long namesIn(Container c, int index) {
        int perBlock = (int) (blockSize / DirectoryRecord.SIZE);
        long first = (long) index * perBlock;
        long n = 0;
        for (Node child : c.childList()) {
            if (child.slot >= first && child.slot < first + perBlock) {
                n++;
            }
        }
        return n;
    }

    /** The latest moves off dead or unreachable servers, oldest first. Under the lock. */
    List<Moved> moved() {
        return List.copyOf(moved);
    }

    /** Writes one record, after any earlier write to the same slot has finished. */
    private CompletableFuture<Void> writeSlot(Container container, int slot, ByteBuffer record) {
        long pos = (long) slot * DirectoryRecord.SIZE;
        int index = (int) (pos / blockSize);
        int offset = (int) (pos % blockSize);
        SlotKey key = new SlotKey(container.id, slot);
        CompletableFuture<Void> previous = lastWrite.get(key);
        CompletableFuture<Void> next = previous == null ? attempt(container, index, offset, record, true)
                : previous.handle((v, e) -> null)
                        .thenCompose(x -> locked(() -> attempt(container, index, offset, record, true)));
        lastWrite.put(key, next);
        next.whenComplete((v, e) -> lastWrite.remove(key, next));
        return next;
    }

    /**
     * Writes {@code record} at {@code offset} of records block {@code index} where that block is
     * (after its move, if one is under way or its server is dead); with {@code mayMove}, a write that
     * cannot reach the server moves the block and is tried once more. Under the namespace lock.
     */
    private CompletableFuture<Void> attempt(Container c, int index, int offset, ByteBuffer record, boolean mayMove) {
        Move m = moving.get(new BlockKey(c.id, index));
        if (m == null && c.state == Node.State.LIVE && !allocator.isLive(c.block(index).server())) {
            try {
                m = move(c, index, "is dead");
            } catch (CreelException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        if (m != null) {
            return m.done().thenCompose(v -> locked(() -> attempt(c, index, offset, record, mayMove)));
        }
        AllocatedBlock target = c.block(index);
        CompletableFuture<Void> written = issue(target.at(c.id, index), offset, record.duplicate());
        if (!mayMove) {
            return written;
        }
        return written.handle((v, err) -> err == null ? CompletableFuture.<Void>completedFuture(null)
                : locked(() -> retry(c, index, offset, record, target, CreelException.unwrap(err))))
                .thenCompose(f -> f);
    }

    /** A write to {@code target} failed: if its server could not be reached, move the block (once) and write again. */
    private CompletableFuture<Void> retry(Container c, int index, int offset, ByteBuffer record, AllocatedBlock target,
                                          CreelException err) {
        if (!unreachable(err) || c.state != Node.State.LIVE) {
            return CompletableFuture.failedFuture(err);
        }
        if (c.block(index) == target && !moving.containsKey(new BlockKey(c.id, index))) {
            try {
                move(c, index, "could not be reached (" + err.getMessage() + ")");
            } catch (CreelException e) {
                e.addSuppressed(err);
                return CompletableFuture.failedFuture(e);
            }
        }
        return attempt(c, index, offset, record, false);
    }

    /** Errors saying the server could not be reached (down, gone, not answering), not that it refused. */
    private static boolean unreachable(CreelException e) {
        return switch (e.code()) {
            case UNAVAILABLE, TIMEOUT, SERVER_UNKNOWN -> true;
            default -> false;
        };
    }

    /**
     * Starts moving records block {@code index} of {@code c} off its server ({@code why} says what
     * is wrong with it): allocates the new block (throws with nothing changed if there is none) and
     * writes every record of the old block into it from the namespace's state. Under the lock.
     */
    private Move move(Container c, int index, String why) {
        AllocatedBlock from = c.block(index);
        AllocatedBlock to;
        try {
            // A dead server is never allocated from; one the registry thinks live but that cannot be reached is avoided.
            Set<Integer> avoid = allocator.isLive(from.server()) ? Set.of(from.server().serverId()) : Set.of();
            to = allocator.allocate(NodeTable.storageClassOf(c, allocator.defaultClass()), NodeTable.locationOf(c),
                    avoid);
        } catch (RegionShortage e) {
            throw e;
        } catch (CreelException e) {
            throw new CreelException(e.code(), "the directory records of " + c.path() + " cannot move off storage server "
                    + from.server().address() + ", which " + why + ": " + e.getMessage(), e);
        }
        Move m = new Move(index, from, to, new CompletableFuture<>(), namesIn(c, index),
                clock.getAsLong() - allocator.silentForMillis(from.server()));
        moving.put(new BlockKey(c.id, index), m);
        LOG.info("{}: directory records block {} moves from storage server {}, which {}, to {}", c.path(), index,
                from.server().address(), why, to.server().address());
        ByteBuffer content = recordsOf(c, index);
        CompletableFuture<Void> copied = content.hasRemaining() ? issue(to.at(c.id, index), 0, content)
                : CompletableFuture.completedFuture(null);
        copied.whenComplete((v, err) -> finishMove(c, m, err));
        return m;
    }

    /**
     * The records of block {@code index} of {@code c} as the namespace knows them now: every slot
     * handed out in that block, each holding its child's record or a cleared one (a new block holds
     * whatever its last owner left, so nothing readable is left unwritten).
     */
    private ByteBuffer recordsOf(Container c, int index) {
        int perBlock = (int) (blockSize / DirectoryRecord.SIZE);
        int first = index * perBlock;
        int end = Math.min(first + perBlock, c.slots().handedOut());
        ByteBuffer out = ByteBuffer.allocate(Math.max(0, end - first) * DirectoryRecord.SIZE);
        for (Node child : c.childList()) {
            if (child.slot >= first && child.slot < end) {
                out.put((child.slot - first) * DirectoryRecord.SIZE,
                        DirectoryRecord.toBuffer(child.type, child.id, child.name), 0, DirectoryRecord.SIZE);
            }
        }
        return out;
    }

    /** The new block holds the records (or could not be written): swap it in and log it, or give it back. */
    private void finishMove(Container c, Move m, Throwable err) {
        CreelException failure = null;
        synchronized (lock) {
            moving.remove(new BlockKey(c.id, m.index()), m);
            boolean current = c.state == Node.State.LIVE && m.index() < c.blockCount() && c.block(m.index()) == m.from();
            if (err == null && current) {
                c.setBlock(m.index(), m.to());
                log.get().block(c.id, m.index(), m.to());
                // Readers may still hold the old location: it waits out the reuse delay like any freed block.
                allocator.retire(List.of(m.from()));
                if (!allocator.isLive(m.from().server())) { // off a draining server, no listing failed
                    if (moved.size() == MOVES_KEPT) {
                        moved.removeFirst();
                    }
                    moved.addLast(new Moved(c, m.from().server(), m.to().server(), m.names(),
                            Math.max(0, clock.getAsLong() - m.unlistedSince())));
                }
            } else {
                // Never given to a reader: it can be reused at once.
                allocator.freeUnpublished(List.of(m.to()));
                if (err != null) {
                    CreelException cause = CreelException.unwrap(err);
                    failure = new CreelException(cause.code(), "the directory records of " + c.path() + " (block "
                            + m.index() + ") could not be moved off storage server " + m.from().server().address()
                            + " to " + m.to().server().address() + ": " + cause.getMessage(), cause);
                }
            }
        }
        if (failure == null) {
            m.done().complete(null);
        } else {
            m.done().completeExceptionally(failure);
        }
    }

    private <T> CompletableFuture<T> locked(Supplier<CompletableFuture<T>> action) {
        synchronized (lock) {
            return action.get();
        }
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
        if (cause instanceof RegionShortage) {
            // The change was undone, so the caller may ask for a region and run it again.
            return cause;
        }
        return new CreelException(cause.code(), path + ": its directory record could not be written, so the "
                + "change was undone: " + cause.getMessage(), cause);
    }
}
