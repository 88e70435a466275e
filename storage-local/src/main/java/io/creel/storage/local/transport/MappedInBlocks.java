package io.creel.storage.local.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * Which blocks of a server's region have their pages mapped into this process, so a copy through the
 * mapping runs at memory speed instead of faulting page by page.
 *
 * <p>Mapping a page in costs about as much as copying it (a fault, a page-cache lookup, a page-table
 * entry), so a block this process touches once is better copied with pread/pwrite, which needs no
 * mapping; a block it comes back to is worth mapping in: all of it at once ({@link #mapIn}, reading a
 * byte of every page, which lets the kernel map the neighbouring pages of each fault too), after
 * which it stays mapped for the life of the transport. Each block goes from unseen, to seen once, to
 * mapped in; the states only move forward.
 */
final class MappedInBlocks {
    /** The smallest page size of the platforms Creel runs on; touching more often is harmless. */
    static final int PAGE = 4096;

    private static final byte UNSEEN = 0;
    private static final byte SEEN = 1;
    private static final byte MAPPED_IN = 2;
    private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(byte[].class);

    private final byte[] states;
    /** Where the touched bytes go, so the reads that map pages in are not optimised away. */
    @SuppressWarnings("unused")
    private volatile long sink;

    MappedInBlocks(long blockCount) {
        this.states = new byte[Math.toIntExact(blockCount)];
    }

    /** Whether the block's pages are mapped in, so copying through the mapping costs no faults. */
    boolean isMappedIn(long block) {
        return state(block) == MAPPED_IN;
    }

    /**
     * Records a use of a block that is not mapped in, and says whether it is the block's second (or
     * later) use: then the caller maps it in ({@link #mapIn}) rather than copying through the file again.
     */
    boolean usedAgain(long block) {
        int i = (int) block;
        return !STATES.compareAndSet(states, i, UNSEEN, SEEN);
    }

    /**
     * Maps every page of {@code blockBytes} (a view of one whole block) into this process and records
     * the block as mapped in. Reading is enough: a shared tmpfs mapping is writable once a read mapped it.
     */
    void mapIn(long block, ByteBuffer blockBytes) {
        long sum = 0;
        for (int i = 0; i < blockBytes.capacity(); i += PAGE) {
            sum += blockBytes.get(i);
        }
        sink = sum;
        STATES.setVolatile(states, (int) block, MAPPED_IN);
    }

    private byte state(long block) {
        return (byte) STATES.getOpaque(states, (int) block);
    }
}
