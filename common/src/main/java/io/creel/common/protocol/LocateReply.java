package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** Reply to locate: the locations of consecutive blocks from the first asked for, at least one. */
public record LocateReply(List<BlockLocation> blocks) implements Message {
    public LocateReply {
        blocks = List.copyOf(blocks);
        if (blocks.isEmpty() || blocks.size() > LocateRequest.MAX_COUNT) {
            throw new IllegalArgumentException("a locate reply holds 1.." + LocateRequest.MAX_COUNT + " blocks, not "
                    + blocks.size());
        }
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeShort(blocks.size());
        for (BlockLocation b : blocks) {
            b.encode(out);
        }
    }

    public static LocateReply decode(ByteBuf in) {
        int n = Wire.readUnsignedShort(in, "locate.blocks");
        if (n < 1 || n > LocateRequest.MAX_COUNT) {
            throw new ProtocolException("locate reply: " + n + " blocks, not 1.." + LocateRequest.MAX_COUNT);
        }
        List<BlockLocation> blocks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            BlockLocation b = BlockLocation.decode(in);
            if (i > 0 && (b.nodeId() != blocks.get(0).nodeId() || b.blockIndex() != blocks.get(0).blockIndex() + i)) {
                throw new ProtocolException("locate reply: block " + i + " is block " + b.blockIndex() + " of node "
                        + b.nodeId() + ", not the next one of the first's");
            }
            blocks.add(b);
        }
        Wire.expectEnd(in, "locate reply");
        return new LocateReply(blocks);
    }
}
