package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A storage server is alive; {@code localToken} guards against a restarted server reusing an old id. */
public record HeartbeatRequest(int serverId, long localToken) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeInt(serverId);
        out.writeLong(localToken);
    }

    public static HeartbeatRequest decode(ByteBuf in) {
        HeartbeatRequest r = new HeartbeatRequest(Wire.readInt(in, "heartbeat.id"), Wire.readLong(in, "heartbeat.token"));
        Wire.expectEnd(in, "heartbeat request");
        return r;
    }
}
