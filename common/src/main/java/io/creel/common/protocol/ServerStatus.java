package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * One storage server as the namenode sees it.
 *
 * @param server          the server
 * @param state           "live", "dead" (missed heartbeats)
 * @param usedBlocks      blocks holding node data
 * @param freeBlocks      blocks ready to hand out
 * @param pendingBlocks   freed blocks still waiting out the reuse delay
 * @param heartbeatAgeMillis time since the last heartbeat
 */
public record ServerStatus(StorageServerInfo server, String state, long usedBlocks, long freeBlocks,
                           long pendingBlocks, long heartbeatAgeMillis) implements Message {
    @Override
    public void encode(ByteBuf out) {
        server.encode(out);
        Wire.writeString(out, state);
        out.writeLong(usedBlocks);
        out.writeLong(freeBlocks);
        out.writeLong(pendingBlocks);
        out.writeLong(heartbeatAgeMillis);
    }

    public static ServerStatus decode(ByteBuf in) {
        return new ServerStatus(StorageServerInfo.decode(in), Wire.readString(in, "status.state"),
                Wire.readNonNegativeLong(in, "status.used"), Wire.readNonNegativeLong(in, "status.free"),
                Wire.readNonNegativeLong(in, "status.pending"), Wire.readLong(in, "status.age"));
    }
}
