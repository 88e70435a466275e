package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** The id the namenode gave a registering storage server. */
public record RegisterReply(int serverId) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeInt(serverId);
    }

    public static RegisterReply decode(ByteBuf in) {
        RegisterReply r = new RegisterReply(Wire.readInt(in, "register.id"));
        Wire.expectEnd(in, "register reply");
        return r;
    }
}
