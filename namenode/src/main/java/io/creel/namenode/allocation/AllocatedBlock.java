package io.creel.namenode.allocation;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;

/**
 * One allocation of a block: the server, the block's number there, and the allocation's tag
 * (strictly larger than every earlier tag of that block).
 */
public record AllocatedBlock(StorageServerInfo server, long blockNumber, long tag) {
    /** This block as block {@code index} of node {@code nodeId}. */
    public BlockLocation at(long nodeId, long index) {
        return new BlockLocation(nodeId, index, server, blockNumber, tag);
    }
}
