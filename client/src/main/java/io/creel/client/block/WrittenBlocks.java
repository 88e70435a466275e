package io.creel.client.block;

import io.creel.client.Futures;
import io.creel.common.protocol.BlockLocation;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What one writer knows of the places its blocks were allocated at, so that a block whose server
 * cannot be reached can move to another server without losing a byte: the transfers in flight to
 * each place, whether any of them landed there, and the move away from it.
 *
 * <p>A block may move only while nothing of it has landed at its old place (the writer keeps no
 * copy of bytes it has reported written). So a move waits until no transfer to the old place is in
 * flight, then moves only if none of them landed; once it has been decided, a transfer that still
 * lands at the old place does not count and goes again to the new one. Thread-safe.
 */
public final class WrittenBlocks {
    private final NodeRef node;
    private final long lease;
    private final BlockIo io;
    /** Places by the tag of their allocation (unique per allocation). */
    private final Map<Long, Place> places = new HashMap<>();

    private enum Move {
        /** Nobody asked to move the block from here. */
        NONE,
        /** Asked; waiting for the transfers in flight here to end before deciding. */
        DRAINING,
        /** Decided: the block goes elsewhere; what lands here from now on does not count. */
        MOVING,
        /** Decided: bytes landed here, so the block stays and the writes that failed here fail. */
        STAYED
    }

    /** One allocation of one block: where a writer's transfers go until the block moves. */
    private static final class Place {
        final long index;
        final BlockLocation at;
        int inFlight;
        boolean landed;
        Move move = Move.NONE;
        CompletableFuture<BlockLocation> moved;

        Place(long index, BlockLocation at) {
            this.index = index;
            this.at = at;
        }
    }

    public WrittenBlocks(NodeRef node, long lease, BlockIo io) {
        this.node = node;
        this.lease = lease;
        this.io = io;
    }

    /** A transfer into block {@code index} at {@code at} started. */
    public synchronized void started(long index, BlockLocation at) {
        place(index, at).inFlight++;
    }

    /**
     * A transfer into block {@code index} at {@code at} ended. Returns whether its bytes count:
     * not if the block has been moved away from {@code at} in the meantime.
     */
    public boolean ended(long index, BlockLocation at, boolean ok) {
        Place decide = null;
        boolean counts = true;
        synchronized (this) {
            Place p = place(index, at);
            p.inFlight--;
            if (ok) {
                if (p.move == Move.MOVING) {
                    counts = false;
                } else {
                    p.landed = true;
                }
            }
            if (p.inFlight == 0 && p.move == Move.DRAINING) {
                decide = p;
            }
        }
        if (decide != null) {
            decide(decide);
        }
        return counts;
    }

    /**
     * Moves block {@code index} away from {@code unreachable}, whose server no transport could
     * reach: completes with the block's new location, or {@code null} if bytes of it landed there
     * (the block cannot move). Every piece that fails at the same place shares one move.
     */
    public CompletableFuture<BlockLocation> moveFrom(long index, BlockLocation unreachable) {
        Place decide = null;
        CompletableFuture<BlockLocation> moved;
        synchronized (this) {
            Place p = place(index, unreachable);
            if (p.move == Move.NONE) {
                p.moved = new CompletableFuture<>();
                if (p.landed) {
                    p.move = Move.STAYED;
                    p.moved.complete(null);
                } else {
                    p.move = Move.DRAINING;
                    if (p.inFlight == 0) {
                        decide = p;
                    }
                }
            }
            moved = p.moved;
        }
        if (decide != null) {
            decide(decide);
        }
        return moved;
    }

    /** Places of blocks before {@code index} are published now and can no longer move: forgotten. */
    public synchronized void forgetBefore(long index) {
        places.values().removeIf(p -> p.index < index && p.inFlight == 0);
    }

    private void decide(Place p) {
        synchronized (this) {
            if (p.move != Move.DRAINING) {
                return;
            }
            if (p.landed) {
                p.move = Move.STAYED;
                p.moved.complete(null);
                return;
            }
            p.move = Move.MOVING;
        }
        Futures.guard(() -> io.move(node, p.index, lease, p.at)).whenComplete((to, t) -> {
            if (t != null) {
                p.moved.completeExceptionally(t);
            } else {
                p.moved.complete(to);
            }
        });
    }

    private Place place(long index, BlockLocation at) {
        return places.computeIfAbsent(at.tag(), t -> new Place(index, at));
    }
}
