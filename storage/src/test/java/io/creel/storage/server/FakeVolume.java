package io.creel.storage.server;

import io.creel.storage.format.BlockTags;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.Volume;
import io.creel.storage.testkit.MemoryVolume;
import java.util.Map;

/** A volume of 16 blocks of 4 KiB in memory (the test kit's), that follows its {@link ServerPlan}. */
final class FakeVolume implements Volume {
    static final int BLOCK_SIZE = 4096;
    static final int BLOCK_COUNT = 16;
    static final long TOKEN = 0x5eed_f00dL;

    private final ServerPlan plan;
    private final MemoryVolume memory = new MemoryVolume(BLOCK_SIZE, BLOCK_COUNT, TOKEN);

    FakeVolume(ServerPlan plan) {
        this.plan = plan;
    }

    /** The host id of the plan it follows. */
    String hostId() {
        return plan.hostId;
    }

    @Override
    public BlockMedium medium() {
        return memory.medium();
    }

    @Override
    public BlockTags tags() {
        return memory.tags();
    }

    @Override
    public long token() {
        return memory.token();
    }

    @Override
    public Map<String, String> attributes() {
        return plan.volumeAttributes;
    }

    @Override
    public String summary() {
        return "fake volume of " + BLOCK_COUNT + " blocks in a " + memory.medium().describe();
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
