package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** Reply to map: the block's location. */
public record MapReply(BlockLocation block) implements Message {
    @Override
    public void encode(ByteBuf out) {
        block.encode(out);
    }

    public static MapReply decode(ByteBuf in) {
        MapReply r = new MapReply(BlockLocation.decode(in));
        Wire.expectEnd(in, "map reply");
        return r;
    }
}
