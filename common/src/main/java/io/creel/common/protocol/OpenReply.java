package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Reply to create and lookup: the node, the write lease if one was granted (0 if none), and the
 * node's first block (absent when the node has no data yet) so a small read or write needs one
 * metadata round trip.
 */
public record OpenReply(NodeInfo node, long lease, BlockLocation firstBlock) implements Message {
    @Override
    public void encode(ByteBuf out) {
        node.encode(out);
        out.writeLong(lease);
        BlockLocation.encodeOptional(out, firstBlock);
    }

    public static OpenReply decode(ByteBuf in) {
        OpenReply r = new OpenReply(NodeInfo.decode(in), Wire.readLong(in, "open.lease"),
                BlockLocation.decodeOptional(in));
        Wire.expectEnd(in, "open reply");
        return r;
    }
}
