package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Ask where block {@code blockIndex} of a node lives. With a write {@code lease} (non-zero) the
 * block is allocated if the node has none there yet; without one, a missing block is NOT_FOUND.
 *
 * <p>With the lease and a non-zero {@code unreachableTag}, the writer could not reach the server
 * of the block it was given under that tag: the namenode allocates the block again on another
 * server (and keeps that server out of the writer's later blocks), provided nothing of the block
 * was published yet. If the block already moved (another piece asked first), the current location
 * is the answer. {@code unreachableServer} names the server (its id) the writer could not reach: of
 * a replicated block only that copy is dropped, and the write goes on with the other copies (the
 * namenode restores the replication factor once the node is closed).
 */
public record MapRequest(long nodeId, long blockIndex, long lease, long unreachableTag, int unreachableServer)
        implements Message {
    /** A plain lookup or allocation. */
    public MapRequest(long nodeId, long blockIndex, long lease) {
        this(nodeId, blockIndex, lease, 0, 0);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(blockIndex);
        out.writeLong(lease);
        out.writeLong(unreachableTag);
        out.writeInt(unreachableServer);
    }

    public static MapRequest decode(ByteBuf in) {
        MapRequest r = new MapRequest(Wire.readLong(in, "map.node"), Wire.readNonNegativeLong(in, "map.index"),
                Wire.readLong(in, "map.lease"), Wire.readLong(in, "map.unreachable"), Wire.readInt(in, "map.unreachableServer"));
        Wire.expectEnd(in, "map request");
        if (r.unreachableTag != 0 && r.lease == 0) {
            throw new ProtocolException("map request: moving a block away from an unreachable server needs the lease");
        }
        return r;
    }
}
