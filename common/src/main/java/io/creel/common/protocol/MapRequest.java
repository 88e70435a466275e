package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Ask where block {@code blockIndex} of a node lives. With a write {@code lease} (non-zero) the
 * block is allocated if the node has none there yet; without one, a missing block is NOT_FOUND.
 */
public record MapRequest(long nodeId, long blockIndex, long lease) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(blockIndex);
        out.writeLong(lease);
    }

    public static MapRequest decode(ByteBuf in) {
        MapRequest r = new MapRequest(Wire.readLong(in, "map.node"), Wire.readNonNegativeLong(in, "map.index"),
                Wire.readLong(in, "map.lease"));
        Wire.expectEnd(in, "map request");
        return r;
    }
}
