package io.creel.storage.spi;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;

/** The range rule every transport enforces before moving bytes: one block at a time, inside it. */
public final class BlockRanges {
    private BlockRanges() {
    }

    /** Throws INVALID_ARGUMENT unless {@code offset..offset+length} lies inside the located block. */
    public static void check(StorageServerInfo server, BlockLocation block, int offset, int length) {
        if (block.blockNumber() < 0 || block.blockNumber() >= server.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "block " + block.blockNumber() + " does not exist on "
                    + server.address() + " (blocks 0.." + (server.blockCount() - 1) + ")");
        }
        if (offset < 0 || (long) offset + length > server.blockSize()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "range " + offset + "+" + length + " of block "
                    + block.blockNumber() + " exceeds the block size " + server.blockSize()
                    + " (a transfer never spans blocks)");
        }
    }
}
