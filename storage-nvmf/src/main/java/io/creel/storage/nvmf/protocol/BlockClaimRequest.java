package io.creel.storage.nvmf.protocol;

import io.creel.common.protocol.Message;
import io.creel.common.protocol.Wire;
import io.netty.buffer.ByteBuf;

/**
 * BLOCK_CLAIM: a client that writes a block at the NVMe-oF target directly asks the block's storage
 * server to claim it for {@code tag} first. The server checks and raises its tag (an older allocation
 * is refused with STALE_BLOCK) and answers once the target's tag sector holds the tag, so the client's
 * data writes that follow can only land after it. The reply is empty.
 */
public record BlockClaimRequest(long blockNumber, long tag) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeLong(blockNumber);
        out.writeLong(tag);
    }

    public static BlockClaimRequest decode(ByteBuf in) {
        BlockClaimRequest r = new BlockClaimRequest(Wire.readNonNegativeLong(in, "claim.block"),
                Wire.readLong(in, "claim.tag"));
        Wire.expectEnd(in, "block claim request");
        return r;
    }
}
