package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * A namenode tells a storage server which of its regions it holds data in (after either of them
 * restarted); the server confirms those that no other namenode holds.
 */
public record RegionSyncRequest(long namenodeInstance, List<Integer> regions) implements Message {
    /** Most regions one sync may name. */
    public static final int MAX_REGIONS = 1 << 20;

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(namenodeInstance);
        out.writeInt(regions.size());
        regions.forEach(out::writeInt);
    }

    public static RegionSyncRequest decode(ByteBuf in) {
        long instance = Wire.readLong(in, "sync.instance");
        int n = Wire.readInt(in, "sync.count", 0, MAX_REGIONS);
        Wire.need(in, n * 4, "sync.regions");
        List<Integer> regions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            regions.add(Wire.readInt(in, "sync.region", 0, Integer.MAX_VALUE));
        }
        Wire.expectEnd(in, "region sync request");
        return new RegionSyncRequest(instance, List.copyOf(regions));
    }
}
