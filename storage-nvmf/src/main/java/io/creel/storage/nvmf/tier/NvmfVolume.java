package io.creel.storage.nvmf.tier;

import io.creel.common.rpc.RequestHandler;
import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.Volume;
import java.util.Map;

/**
 * An nvmf volume: blocks on an NVMe-oF namespace, their tags (the server's table, mirrored in the
 * target's tag sectors), and the attributes that let clients reach the namespace directly.
 */
public final class NvmfVolume implements Volume {
    private final TargetSession session;
    private final NvmfMedium medium;
    private final BlockTags tags;
    private final TagSectors tagSectors;
    private final Map<String, String> attributes;
    private final String summary;

    NvmfVolume(TargetSession session, NvmfMedium medium, BlockTags tags, TagSectors tagSectors,
               Map<String, String> attributes, String summary) {
        this.session = session;
        this.medium = medium;
        this.tags = tags;
        this.tagSectors = tagSectors;
        this.attributes = Map.copyOf(attributes);
        this.summary = summary;
    }

    @Override
    public BlockMedium medium() {
        return medium;
    }

    @Override
    public BlockTags tags() {
        return tags;
    }

    @Override
    public long token() {
        return session.token();
    }

    @Override
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    public String summary() {
        return summary;
    }

    @Override
    public String unavailable() {
        return session.problem();
    }

    /** The handler of BLOCK_CLAIM requests for this volume, naming the server {@code serverName} in errors. */
    RequestHandler claimHandler(String serverName) {
        return new ClaimHandler(serverName, tags, tagSectors, session);
    }

    /** Disconnects from the target; the blocks stay on the namespace, but no later server will serve them. */
    @Override
    public void close() {
        session.close();
    }
}
