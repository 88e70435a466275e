package io.creel.storage.server;

import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.Volume;
import java.nio.ByteBuffer;
import java.util.Map;

/** A volume of 16 blocks of 4 KiB over a heap buffer, with its tags in a direct buffer. */
final class FakeVolume implements Volume {
    static final int BLOCK_SIZE = 4096;
    static final int BLOCK_COUNT = 16;
    static final long TOKEN = 0x5eed_f00dL;

    private final ServerPlan plan;
    private final FakeMedium medium = new FakeMedium(ByteBuffer.allocate(BLOCK_SIZE * BLOCK_COUNT), BLOCK_SIZE);
    private final BlockTags tags = new BlockTags(ByteBuffer.allocateDirect(BLOCK_COUNT * 8), BLOCK_COUNT);

    FakeVolume(ServerPlan plan) {
        this.plan = plan;
    }

    /** The host id of the plan it follows. */
    String hostId() {
        return plan.hostId;
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
        return TOKEN;
    }

    @Override
    public Map<String, String> attributes() {
        return plan.volumeAttributes;
    }

    @Override
    public String summary() {
        return "fake volume of " + BLOCK_COUNT + " blocks in a " + medium.describe();
    }

    @Override
    public String unavailable() {
        return plan.unavailable;
    }

    /** Records that it closed and whether the server's port still accepted connections then. */
    @Override
    public void close() {
        plan.event("volume closed, port " + plan.portState());
    }
}
