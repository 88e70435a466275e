package io.creel.namenode.allocation;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;

/**
 * No granted block is free in a storage class whose servers may still grant regions: the caller
 * should ask them for a region and try again. If it reaches a client it reads as OUT_OF_SPACE.
 */
public final class RegionShortage extends CreelException {
    private static final long serialVersionUID = 1L;

    private final String storageClass;
    private final int blockSize;

    public RegionShortage(String storageClass) {
        this(storageClass, 0);
    }

    /** A shortage of blocks of {@code blockSize} bytes (a size class's; 0 for whole blocks). */
    public RegionShortage(String storageClass, int blockSize) {
        super(ErrorCode.OUT_OF_SPACE, "no free " + (blockSize == 0 ? "" : blockSize + "-byte ") + "block granted to "
                + "this namenode in storage class " + storageClass + "; its storage servers were asked for more");
        this.storageClass = storageClass;
        this.blockSize = blockSize;
    }

    /** The size class short of blocks: 0 for whole blocks. */
    public int blockSize() {
        return blockSize;
    }

    /** The class to ask for regions in. */
    public String storageClass() {
        return storageClass;
    }
}
