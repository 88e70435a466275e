package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** Reply carrying one node: to remove (the removed node), move (the moved node) and commit. */
public record NodeReply(NodeInfo node) implements Message {
    @Override
    public void encode(ByteBuf out) {
        node.encode(out);
    }

    public static NodeReply decode(ByteBuf in) {
        NodeReply r = new NodeReply(NodeInfo.decode(in));
        Wire.expectEnd(in, "node reply");
        return r;
    }
}
