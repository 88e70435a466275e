package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Regions granted (or confirmed) to a namenode. A region is {@code regionBlocks} consecutive blocks
 * starting at {@code region * regionBlocks} (the last region may be shorter). {@code full} says the
 * server has no free region left.
 */
public record RegionGrantReply(int regionBlocks, List<Grant> grants, boolean full) implements Message {
    /**
     * One region.
     *
     * @param region the region's index
     * @param minTag the highest tag any block of the region carries: the namenode's tags for these
     *               blocks must be larger, whichever namenode used the region before
     */
    public record Grant(int region, long minTag) {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(regionBlocks);
        out.writeInt(grants.size());
        for (Grant g : grants) {
            out.writeInt(g.region());
            out.writeLong(g.minTag());
        }
        Wire.writeBoolean(out, full);
    }

    public static RegionGrantReply decode(ByteBuf in) {
        int regionBlocks = Wire.readInt(in, "grants.regionBlocks", 1, Integer.MAX_VALUE);
        int n = Wire.readInt(in, "grants.count", 0, RegionSyncRequest.MAX_REGIONS);
        Wire.need(in, n * 12, "grants");
        List<Grant> grants = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            grants.add(new Grant(Wire.readInt(in, "grant.region", 0, Integer.MAX_VALUE), Wire.readLong(in, "grant.tag")));
        }
        boolean full = Wire.readBoolean(in, "grants.full");
        Wire.expectEnd(in, "region grant reply");
        return new RegionGrantReply(regionBlocks, List.copyOf(grants), full);
    }
}
