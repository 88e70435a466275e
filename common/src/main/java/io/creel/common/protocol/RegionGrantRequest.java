package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A namenode asks a storage server for up to {@code count} free regions. */
public record RegionGrantRequest(long namenodeInstance, int count) implements Message {
    /** Most regions one request may ask for. */
    public static final int MAX_COUNT = 1024;

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(namenodeInstance);
        out.writeInt(count);
    }

    public static RegionGrantRequest decode(ByteBuf in) {
        RegionGrantRequest r = new RegionGrantRequest(Wire.readLong(in, "grant.instance"),
                Wire.readInt(in, "grant.count", 1, MAX_COUNT));
        Wire.expectEnd(in, "region grant request");
        return r;
    }
}
