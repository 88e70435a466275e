package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** Remove a node; a container with children needs {@code recursive}. */
public record RemoveRequest(String path, boolean recursive) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        Wire.writeBoolean(out, recursive);
    }

    public static RemoveRequest decode(ByteBuf in) {
        RemoveRequest r = new RemoveRequest(Wire.readString(in, "remove.path"), Wire.readBoolean(in, "remove.recursive"));
        Wire.expectEnd(in, "remove request");
        return r;
    }
}
