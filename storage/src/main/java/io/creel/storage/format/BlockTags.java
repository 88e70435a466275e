package io.creel.storage.format;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The tag of every block of one storage server, in shared memory.
 *
 * <p>The namenode gives each allocation of a block a new, larger tag. A writer {@link #claim claims}
 * the block for its tag before writing (tags only grow, so a writer with an old tag is refused);
 * a reader {@link #matches checks} the tag before and after copying bytes. A location that outlived
 * its allocation therefore fails with {@link ErrorCode#STALE_BLOCK} instead of yielding another
 * node's bytes, and so does a read of a block its allocation has not written yet (the server learns
 * a tag from the first write under it). The server and same-host clients use the same table.
 */
public final class BlockTags {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer table;
    private final long blockCount;

    /**
     * @param table      a direct (mapped) buffer holding {@code blockCount} 8-byte slots from position 0,
     *                   8-byte aligned
     * @param blockCount number of blocks
     */
    public BlockTags(ByteBuffer table, long blockCount) {
        if (!table.isDirect()) {
            throw new IllegalArgumentException("tag table must be a direct buffer");
        }
        if (table.capacity() < blockCount * 8) {
            throw new IllegalArgumentException("tag table too small for " + blockCount + " blocks");
        }
        this.table = table;
        this.blockCount = blockCount;
    }

    public long blockCount() {
        return blockCount;
    }

    /** The block's current tag (0: never claimed). */
    public long get(long block) {
        return (long) LONGS.getVolatile(table, index(block));
    }

    /**
     * Claims {@code block} for {@code tag} before a write. Succeeds if the block's tag is already
     * {@code tag} or older (then it becomes {@code tag}); fails if a newer allocation owns it.
     */
    public boolean claim(long block, long tag) {
        int idx = index(block);
        while (true) {
            long cur = (long) LONGS.getVolatile(table, idx);
            if (cur == tag) {
                return true;
            }
            if (Long.compareUnsigned(cur, tag) > 0) {
                return false;
            }
            if (LONGS.compareAndSet(table, idx, cur, tag)) {
                return true;
            }
        }
    }

    /** Whether the block currently belongs to {@code tag}. */
    public boolean matches(long block, long tag) {
        return get(block) == tag;
    }

    /** Claims or throws STALE_BLOCK naming the block. */
    public void claimOrThrow(long block, long tag, String where) {
        if (!claim(block, tag)) {
            throw stale(block, tag, where);
        }
    }

    /** Checks or throws STALE_BLOCK naming the block. */
    public void checkOrThrow(long block, long tag, String where) {
        if (!matches(block, tag)) {
            throw stale(block, tag, where);
        }
    }

    /** The error for a location whose tag is not the block's, with the block's tag read now. */
    private CreelException stale(long block, long tag, String where) {
        return staleBlock(block, tag, get(block), where);
    }

    /**
     * The error for a location whose tag {@code tag} is not the block's {@code now} (for transports
     * that read the tag remotely; same wording as the server's). Tags only grow, so the block's tag
     * says which way the location is off: a newer one means the block was freed and handed to a
     * newer allocation; an older one means this allocation has not written the block yet (a block's
     * tag reaches the server with the allocation's first write), so there is nothing of it to read.
     */
    public static CreelException staleBlock(long block, long tag, long now, String where) {
        String why = Long.compareUnsigned(now, tag) > 0
                ? " was freed and reused (tag " + Long.toUnsignedString(tag) + ", now " + Long.toUnsignedString(now) + ")"
                : " has not been written under this allocation yet (tag " + Long.toUnsignedString(tag)
                        + (now == 0 ? "; the block was never written" : "; it still holds the older tag "
                        + Long.toUnsignedString(now)) + ")";
        return new CreelException(ErrorCode.STALE_BLOCK, where + ": block " + block + why);
    }

    private int index(long block) {
        if (block < 0 || block >= blockCount) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "block " + block + " out of range 0.." + (blockCount - 1));
        }
        return Math.toIntExact(block * 8);
    }
}
