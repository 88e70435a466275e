package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * Reply to create and lookup: the node, the write lease if one was granted (0 if none), and the
 * node's first block (absent when the node has no data in blocks) so a small read or write needs one
 * metadata round trip.
 *
 * @param data        the node's committed bytes when the namenode keeps them inline (then no block
 *                    holds them and a read needs no data transfer), else {@code null}
 * @param inlineLimit the most bytes a writer of this node may commit inline ({@link CommitRequest}
 *                    with data); 0 when the node's bytes must go to blocks
 */
public record OpenReply(NodeInfo node, long lease, BlockLocation firstBlock, byte[] data, int inlineLimit)
        implements Message {
    /** A reply without inline data. */
    public OpenReply(NodeInfo node, long lease, BlockLocation firstBlock) {
        this(node, lease, firstBlock, null, 0);
    }

    @Override
    public void encode(ByteBuf out) {
        node.encode(out);
        out.writeLong(lease);
        BlockLocation.encodeOptional(out, firstBlock);
        Wire.writeOptionalBytes(out, data);
        out.writeInt(inlineLimit);
    }

    public static OpenReply decode(ByteBuf in) {
        NodeInfo node = NodeInfo.decode(in);
        long lease = Wire.readLong(in, "open.lease");
        BlockLocation first = BlockLocation.decodeOptional(in);
        byte[] data = Wire.readOptionalBytes(in, "open.data");
        int limit = Wire.readInt(in, "open.inlineLimit", 0, Wire.MAX_INLINE_BYTES);
        if (data != null && data.length != node.length()) {
            throw new ProtocolException("open reply: " + data.length + " bytes of inline data for a node of length "
                    + node.length());
        }
        Wire.expectEnd(in, "open reply");
        return new OpenReply(node, lease, first, data, limit);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpenReply r && r.node.equals(node) && r.lease == lease
                && Objects.equals(r.firstBlock, firstBlock) && Arrays.equals(r.data, data)
                && r.inlineLimit == inlineLimit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(node, lease, firstBlock, inlineLimit) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "OpenReply[" + node + ", lease=" + lease + ", firstBlock=" + firstBlock
                + (data == null ? "" : ", " + data.length + " bytes inline") + ", inlineLimit=" + inlineLimit + "]";
    }
}
