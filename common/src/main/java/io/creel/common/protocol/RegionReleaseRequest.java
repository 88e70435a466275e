package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A namenode gives a region back: none of its blocks holds data the namenode knows of. */
public record RegionReleaseRequest(long namenodeInstance, int region) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeLong(namenodeInstance);
        out.writeInt(region);
    }

    public static RegionReleaseRequest decode(ByteBuf in) {
        RegionReleaseRequest r = new RegionReleaseRequest(Wire.readLong(in, "release.instance"),
                Wire.readInt(in, "release.region", 0, Integer.MAX_VALUE));
        Wire.expectEnd(in, "region release request");
        return r;
    }
}
