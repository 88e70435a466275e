package io.creel.storage.nvmf.tier;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Empty;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.storage.format.BlockTags;
import io.creel.storage.nvmf.protocol.BlockClaimRequest;
import io.creel.storage.nvmf.volume.NvmfErrors;

/**
 * Serves BLOCK_CLAIM: raises the block's tag in the server's table (refusing an older allocation with
 * STALE_BLOCK, as a write through the server would be refused) and answers once the target's tag
 * sector holds it. Never blocks the event loop: the answer goes when the sector write completes.
 */
final class ClaimHandler implements RequestHandler {
    private final String name;
    private final BlockTags tags;
    private final TagSectors tagSectors;
    private final TargetSession session;

    ClaimHandler(String name, BlockTags tags, TagSectors tagSectors, TargetSession session) {
        this.name = name;
        this.tags = tags;
        this.tagSectors = tagSectors;
        this.session = session;
    }

    @Override
    public void handle(RpcCall call) {
        BlockClaimRequest r = BlockClaimRequest.decode(call.body());
        if (r.blockNumber() >= tags.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + ": block " + r.blockNumber()
                    + " does not exist (the server has blocks 0.." + (tags.blockCount() - 1) + ")");
        }
        String down = session.problem();
        if (down != null) {
            throw new CreelException(ErrorCode.UNAVAILABLE, name + ": " + down);
        }
        tags.claimOrThrow(r.blockNumber(), r.tag(), name + " claim");
        tagSectors.persist(r.blockNumber()).whenComplete((v, e) -> {
            if (e == null) {
                call.reply(Empty.INSTANCE);
            } else {
                call.fail(NvmfErrors.toCreel(e, name + ": writing the tag sector of block " + r.blockNumber()));
            }
        });
    }
}
