package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The id the namenode gave a registering storage server, and the namenode's instance: a storage
 * server that sees a new instance behind the same address knows the namenode restarted and takes
 * back the regions the old instance held.
 */
public record RegisterReply(int serverId, long namenodeInstance) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeInt(serverId);
        out.writeLong(namenodeInstance);
    }

    public static RegisterReply decode(ByteBuf in) {
        RegisterReply r = new RegisterReply(Wire.readInt(in, "register.id"), Wire.readLong(in, "register.instance"));
        Wire.expectEnd(in, "register reply");
        return r;
    }
}
