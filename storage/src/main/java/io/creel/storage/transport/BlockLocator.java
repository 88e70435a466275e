package io.creel.storage.transport;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import java.util.concurrent.CompletableFuture;

/**
 * Where one block of some data lives, as its user knows it: a client asks its location cache (and
 * through it the namenode); the namenode knows its own records' blocks outright.
 */
public interface BlockLocator {
    /** The block's location, possibly remembered from earlier. */
    CompletableFuture<BlockLocation> locate();

    /**
     * A fresh location after {@code stale} was refused as STALE_BLOCK (a remembered location outlived
     * its allocation), or {@code null} if this locator has nothing fresher to offer.
     */
    default CompletableFuture<BlockLocation> relocate(BlockLocation stale) {
        return null;
    }

    /**
     * Called once a transfer from {@code at} is under way, so the user can overlap its next lookup
     * with this transfer (a sequential reader asks for the next block's location now). Called at most
     * once per transfer: not for an attempt refused at once, and not again when the transfer falls
     * back to another transport or moves to a fresh location.
     */
    default void transferStarted(BlockLocation at) {
    }

    /**
     * Called each time a transport is handed the piece at {@code at} (the first attempt, and again
     * after a fallback, a relocation or a move), before the attempt can end; every call is followed
     * by exactly one {@link #attemptEnded}. A writer counts the transfers in flight into a block with
     * the pair, so it knows when a block may still move.
     */
    default void attemptStarted(BlockLocation at) {
    }

    /**
     * Called when an attempt at {@code at} has ended, {@code ok} or not. For a write, says whether
     * the bytes count: {@code false} if the block moved away from {@code at} meanwhile (see
     * {@link #moveFrom}), so they must go again to where the block is now.
     */
    default boolean attemptEnded(BlockLocation at, boolean ok) {
        return true;
    }

    /**
     * For a write whose block's server could not be reached at {@code unreachable} by any
     * transport: where the block is now after its writer had it allocated elsewhere. Completes with
     * {@code null} if the block cannot move (some of it was written there already); {@code null}
     * itself if this locator cannot move blocks at all.
     */
    default CompletableFuture<BlockLocation> moveFrom(BlockLocation unreachable) {
        return null;
    }

    /**
     * For a write into a replicated {@code block} whose copy on {@code unreachable} no transport could
     * reach: drops that copy from the block, so the write goes on with the others. Completes with the
     * block's location now; {@code null} itself if this locator cannot drop copies (the write fails).
     */
    default CompletableFuture<BlockLocation> dropCopy(BlockLocation block, StorageServerInfo unreachable) {
        return null;
    }

    /** A locator of a location known for sure (nothing fresher exists). */
    static BlockLocator at(BlockLocation location) {
        CompletableFuture<BlockLocation> done = CompletableFuture.completedFuture(location);
        return () -> done;
    }
}
