package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * {@code known} false tells the storage server to register again (the namenode restarted or dropped
 * it); {@code decommissioned} tells it that it was drained and should leave the cluster.
 */
public record HeartbeatReply(boolean known, boolean decommissioned) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeBoolean(out, known);
        Wire.writeBoolean(out, decommissioned);
    }

    public static HeartbeatReply decode(ByteBuf in) {
        HeartbeatReply r = new HeartbeatReply(Wire.readBoolean(in, "heartbeat.known"),
                Wire.readBoolean(in, "heartbeat.decommissioned"));
        Wire.expectEnd(in, "heartbeat reply");
        return r;
    }
}
