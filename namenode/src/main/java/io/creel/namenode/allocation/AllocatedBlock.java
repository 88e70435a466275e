package io.creel.namenode.allocation;

import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * One allocation of a block: the server of its first copy, the block's number there, that copy's
 * tag (strictly larger than every earlier tag of that block on its server), and the block's other
 * copies, each with its own tag, when it is replicated. The first copy's tag names the allocation
 * (a writer that cannot reach a server names the block by it).
 */
public record AllocatedBlock(StorageServerInfo server, long blockNumber, long tag, List<BlockCopy> others) {
    public AllocatedBlock {
        others = List.copyOf(others);
    }

    /** A block with one copy. */
    public AllocatedBlock(StorageServerInfo server, long blockNumber, long tag) {
        this(server, blockNumber, tag, List.of());
    }

    /** A block of these copies (at least one), first copy first. */
    public static AllocatedBlock of(List<BlockCopy> copies) {
        BlockCopy first = copies.get(0);
        return new AllocatedBlock(first.server(), first.blockNumber(), first.tag(), copies.subList(1, copies.size()));
    }

    /** Every copy, first copy first. */
    public List<BlockCopy> copies() {
        List<BlockCopy> out = new ArrayList<>(1 + others.size());
        out.add(new BlockCopy(server, blockNumber, tag));
        out.addAll(others);
        return out;
    }

    /** How many copies the block has. */
    public int copyCount() {
        return 1 + others.size();
    }

    /** Whether a copy is on the server with id {@code serverId}. */
    public boolean hasCopyOn(int serverId) {
        return copies().stream().anyMatch(c -> c.server().serverId() == serverId);
    }

    /** This block as block {@code index} of node {@code nodeId}. */
    public BlockLocation at(long nodeId, long index) {
        return new BlockLocation(nodeId, index, server, blockNumber, tag, others);
    }
}
