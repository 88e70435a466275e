package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * One copy of a replicated block: the storage server holding it, the block's number there and the
 * tag of that copy's allocation. Copies made together share a tag; a copy made later to restore
 * the replication factor has its own, newer one (its block may have served a newer allocation
 * before), so every copy is guarded against stale readers by its own server like any block.
 *
 * @param server      the storage server holding this copy
 * @param blockNumber the block's number on that server
 * @param tag         the tag of this copy's allocation
 */
public record BlockCopy(StorageServerInfo server, long blockNumber, long tag) implements Message {
    @Override
    public void encode(ByteBuf out) {
        server.encode(out);
        out.writeLong(blockNumber);
        out.writeLong(tag);
    }

    public static BlockCopy decode(ByteBuf in) {
        return new BlockCopy(StorageServerInfo.decode(in), Wire.readNonNegativeLong(in, "copy.number"),
                Wire.readLong(in, "copy.tag"));
    }
}
