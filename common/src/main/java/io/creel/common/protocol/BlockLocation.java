package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Where block {@code blockIndex} of node {@code nodeId} lives.
 *
 * @param nodeId      the node
 * @param blockIndex  index of the block within the node's data
 * @param server      the storage server holding it
 * @param blockNumber the block's number on that server
 * @param tag         the allocation's tag: storage servers refuse reads whose tag is not the block's
 *                    current one, so a stale location can never return another node's bytes
 */
public record BlockLocation(long nodeId, long blockIndex, StorageServerInfo server, long blockNumber, long tag)
        implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(blockIndex);
        server.encode(out);
        out.writeLong(blockNumber);
        out.writeLong(tag);
    }

    public static BlockLocation decode(ByteBuf in) {
        return new BlockLocation(Wire.readLong(in, "block.node"), Wire.readNonNegativeLong(in, "block.index"),
                StorageServerInfo.decode(in), Wire.readNonNegativeLong(in, "block.number"),
                Wire.readLong(in, "block.tag"));
    }

    /** Writes a location that may be absent. */
    public static void encodeOptional(ByteBuf out, BlockLocation b) {
        Wire.writeBoolean(out, b != null);
        if (b != null) {
            b.encode(out);
        }
    }

    /** Reads a location that may be absent ({@code null}). */
    public static BlockLocation decodeOptional(ByteBuf in) {
        return Wire.readBoolean(in, "block.present") ? decode(in) : null;
    }
}
