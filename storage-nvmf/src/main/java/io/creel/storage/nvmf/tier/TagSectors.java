package io.creel.storage.nvmf.tier;

import io.creel.storage.format.BlockTags;
import io.creel.storage.nvmf.volume.VolumeIo;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * Keeps the target's tag sectors in step with the server's {@link BlockTags}, which stay the
 * authority: every claim (a TCP write, a client's BLOCK_CLAIM) raises the tag there first, and then
 * waits here until the target's sector holds it, before any data of the claim is written.
 *
 * <p>The server is the only writer of tag sectors, and writes each block's sector one command at a
 * time, always with the newest tag then known; a sector on the target therefore never goes back to an
 * older tag, whatever order claims arrive in.
 */
final class TagSectors {
    private final BlockTags tags;
    private final Supplier<VolumeIo> volume;
    /** The tag each block's sector holds on the target, as far as this server wrote it (0: none yet). */
    private final AtomicLongArray onTarget;
    /** The write under way per block; later callers wait for it and then look again. */
    private final ConcurrentHashMap<Long, CompletableFuture<Void>> writing = new ConcurrentHashMap<>();

    TagSectors(BlockTags tags, Supplier<VolumeIo> volume) {
        this.tags = tags;
        this.volume = volume;
        this.onTarget = new AtomicLongArray(Math.toIntExact(tags.blockCount()));
    }

    /** Completes once {@code block}'s tag sector on the target holds its current tag (or a newer one). */
    CompletableFuture<Void> persist(long block) {
        if (!behind(block)) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> earlier = writing.putIfAbsent(block, mine);
        if (earlier != null) {
            // Whether it worked or not, look again once it is done: the tag may have moved on.
            return earlier.handle((v, e) -> null).thenCompose(v -> persist(block));
        }
        write(block, mine);
        return mine;
    }

    /** The tag the target's sector holds as far as this server knows (0: not written by this server). */
    long onTarget(long block) {
        return onTarget.get(Math.toIntExact(block));
    }

    private boolean behind(long block) {
        return Long.compareUnsigned(onTarget.get(Math.toIntExact(block)), tags.get(block)) < 0;
    }

    private void write(long block, CompletableFuture<Void> mine) {
        long tag = tags.get(block);
        if (!behind(block)) {
            writing.remove(block, mine);
            mine.complete(null);
            return;
        }
        CompletableFuture<Void> sent;
        try {
            sent = volume.get().writeTag(block, tag);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((v, e) -> {
            if (e != null) {
                // What the sector holds now is unknown (the write may have landed); the next claim writes again.
                writing.remove(block, mine);
                mine.completeExceptionally(e);
                return;
            }
            onTarget.accumulateAndGet(Math.toIntExact(block), tag,
                    (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
            write(block, mine); // a newer claim may have come meanwhile
        });
    }
}
