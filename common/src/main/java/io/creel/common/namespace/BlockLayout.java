package io.creel.common.namespace;

/**
 * How a File's or KeyValue's bytes map to its blocks: the one place the client and the namenode
 * turn an offset into a block index and an offset inside that block, and a length into a number of
 * blocks.
 *
 * <p>A layout is a first block of {@code firstBlockSize} bytes followed by blocks of
 * {@code blockSize} bytes each ({@code creel.block.size}): block 0 covers {@code [0, first)} and
 * block {@code i > 0} covers {@code [first + (i-1)·size, first + i·size)}. A node whose block 0 is
 * a whole block has the {@link #uniform} layout; a shorter one is a size class's (see "Values
 * between 4 KiB and a block" in {@code docs/architecture.md}).
 *
 * @param firstBlockSize bytes of block 0, at least 1 and at most {@code blockSize}
 * @param blockSize      bytes of every later block, at least 1
 */
public record BlockLayout(long firstBlockSize, long blockSize) {
    public BlockLayout {
        if (blockSize < 1) {
            throw new IllegalArgumentException("block size must be positive: " + blockSize);
        }
        if (firstBlockSize < 1 || firstBlockSize > blockSize) {
            throw new IllegalArgumentException("first block size " + firstBlockSize + " must be between 1 and the"
                    + " block size " + blockSize);
        }
    }

    /** Every block, the first included, of {@code blockSize} bytes: the layout of every node today. */
    public static BlockLayout uniform(long blockSize) {
        return new BlockLayout(blockSize, blockSize);
    }

    /** The index of the block holding byte {@code position} (at least 0). */
    public long blockOf(long position) {
        checkPosition(position);
        return position < firstBlockSize ? 0 : 1 + (position - firstBlockSize) / blockSize;
    }

    /** Where byte {@code position} lies inside its block ({@link #blockOf}). */
    public int offsetInBlock(long position) {
        return (int) (position - start(blockOf(position)));
    }

    /** The node offset block {@code index} starts at. */
    public long start(long index) {
        checkIndex(index);
        return index == 0 ? 0 : firstBlockSize + (index - 1) * blockSize;
    }

    /** Bytes block {@code index} holds. */
    public long size(long index) {
        checkIndex(index);
        return index == 0 ? firstBlockSize : blockSize;
    }

    /** How many blocks hold the bytes {@code [0, length)}: 0 for an empty node. */
    public long blocksFor(long length) {
        checkPosition(length);
        return length == 0 ? 0 : blockOf(length - 1) + 1;
    }

    /** Bytes the first {@code blocks} blocks hold together. */
    public long capacity(long blocks) {
        checkPosition(blocks);
        return blocks == 0 ? 0 : start(blocks - 1) + size(blocks - 1);
    }

    /** Bytes from {@code position} to the end of its block: the longest transfer that starts there. */
    public long remainingInBlock(long position) {
        long index = blockOf(position);
        return start(index) + size(index) - position;
    }

    private static void checkPosition(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("negative position or count: " + position);
        }
    }

    private static void checkIndex(long index) {
        if (index < 0) {
            throw new IllegalArgumentException("negative block index: " + index);
        }
    }
}
