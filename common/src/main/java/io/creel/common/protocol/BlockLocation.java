package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Where block {@code blockIndex} of node {@code nodeId} lives.
 *
 * @param nodeId      the node
 * @param blockIndex  index of the block within the node's data
 * @param server      the storage server holding it
 * @param blockNumber the block's number on that server
 * @param tag         the allocation's tag: storage servers refuse reads whose tag is not the block's
 *                    current one, so a stale location can never return another node's bytes
 * @param others      the block's other copies when it is replicated (empty when it is not); every copy
 *                    holds the same bytes, each under its own tag. {@code server} is the first copy.
 */
public record BlockLocation(long nodeId, long blockIndex, StorageServerInfo server, long blockNumber, long tag,
                            List<BlockCopy> others) implements Message {
    /** Most copies a block may have (the first and the others). */
    public static final int MAX_COPIES = 8;

    public BlockLocation {
        others = List.copyOf(others);
    }

    /** A block with one copy. */
    public BlockLocation(long nodeId, long blockIndex, StorageServerInfo server, long blockNumber, long tag) {
        this(nodeId, blockIndex, server, blockNumber, tag, List.of());
    }

    /** How many copies the block has. */
    public int copyCount() {
        return 1 + others.size();
    }

    /**
     * Copy {@code i} (0 is the first) as a location of its own: one copy, its tag. Transports move
     * the bytes of one copy; replication is decided above them.
     */
    public BlockLocation copy(int i) {
        if (i == 0) {
            return others.isEmpty() ? this : new BlockLocation(nodeId, blockIndex, server, blockNumber, tag);
        }
        BlockCopy c = others.get(i - 1);
        return new BlockLocation(nodeId, blockIndex, c.server(), c.blockNumber(), c.tag());
    }

    /** Every copy, each as a location of its own, first copy first. */
    public List<BlockLocation> copies() {
        List<BlockLocation> out = new ArrayList<>(copyCount());
        for (int i = 0; i < copyCount(); i++) {
            out.add(copy(i));
        }
        return out;
    }

    /** Whether a copy of this block is on the server with id {@code serverId}. */
    public boolean hasCopyOn(int serverId) {
        if (server.serverId() == serverId) {
            return true;
        }
        for (BlockCopy c : others) {
            if (c.server().serverId() == serverId) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(blockIndex);
        server.encode(out);
        out.writeLong(blockNumber);
        out.writeLong(tag);
        out.writeByte(others.size());
        for (BlockCopy c : others) {
            c.encode(out);
        }
    }

    public static BlockLocation decode(ByteBuf in) {
        long node = Wire.readLong(in, "block.node");
        long index = Wire.readNonNegativeLong(in, "block.index");
        StorageServerInfo server = StorageServerInfo.decode(in);
        long number = Wire.readNonNegativeLong(in, "block.number");
        long tag = Wire.readLong(in, "block.tag");
        int n = Wire.readByte(in, "block.copies");
        if (n < 0 || n >= MAX_COPIES) {
            throw new ProtocolException("block.copies: " + n + " other copies, at most " + (MAX_COPIES - 1));
        }
        List<BlockCopy> others = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            others.add(BlockCopy.decode(in));
        }
        return new BlockLocation(node, index, server, number, tag, others);
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
