package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** {@code known} false tells the storage server to register again (the namenode restarted or dropped it). */
public record HeartbeatReply(boolean known) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeBoolean(out, known);
    }

    public static HeartbeatReply decode(ByteBuf in) {
        HeartbeatReply r = new HeartbeatReply(Wire.readBoolean(in, "heartbeat.known"));
        Wire.expectEnd(in, "heartbeat reply");
        return r;
    }
}
