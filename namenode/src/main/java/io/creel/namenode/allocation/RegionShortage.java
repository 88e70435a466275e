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

    public RegionShortage(String storageClass) {
        super(ErrorCode.OUT_OF_SPACE, "no free block granted to this namenode in storage class " + storageClass
                + "; its storage servers were asked for more");
        this.storageClass = storageClass;
    }

    /** The class to ask for regions in. */
    public String storageClass() {
        return storageClass;
    }
}
