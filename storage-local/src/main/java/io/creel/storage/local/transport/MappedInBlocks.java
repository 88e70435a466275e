package io.creel.storage.local.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Which blocks of a server's region have their pages mapped into this process, so a copy through the
 * mapping runs at memory speed instead of faulting page by page.
 *
 * <p>Mapping a page in costs about as much as copying it (a fault, a page-cache lookup, a page-table
 * entry), so a block this process touches once is better copied with pread/pwrite, which needs no
 * mapping; a block it comes back to is worth mapping in: all of it at once
 * ({@link io.creel.storage.format.MappedRegion#mapIn}), after which it stays mapped for the life of
 * the transport. Each block goes from unseen, to seen once, to mapped in; the states only move
 * forward.
 */
final class MappedInBlocks {
    private static final byte UNSEEN = 0;
    private static final byte SEEN = 1;
    private static final byte MAPPED_IN = 2;
    private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(byte[].class);

    private final byte[] states;

    MappedInBlocks(long blockCount) {
        this.states = new byte[Math.toIntExact(blockCount)];
    }

    /** Whether the block's pages are mapped in, so copying through the mapping costs no faults. */
    boolean isMappedIn(long block) {
        return state(block) == MAPPED_IN;
    }

    /**
     * Records a use of a block that is not mapped in, and says whether it is the block's second (or
     * later) use: then the caller maps it in rather than copying through the file again.
     */
    boolean usedAgain(long block) {
        return !STATES.compareAndSet(states, Math.toIntExact(block), UNSEEN, SEEN);
    }

    /** Records that {@code block} has been mapped in whole ({@link io.creel.storage.format.MappedRegion#mapIn}). */
    void mappedIn(long block) {
        STATES.setVolatile(states, Math.toIntExact(block), MAPPED_IN);
    }

    private byte state(long block) {
        return (byte) STATES.getOpaque(states, Math.toIntExact(block));
    }
}
