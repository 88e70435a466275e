package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Look a path up. With {@code forAppend}, also take the File's write lease (fails if another
 * writer holds it), so the caller may continue the File.
 */
public record LookupRequest(String path, boolean forAppend) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        Wire.writeBoolean(out, forAppend);
    }

    public static LookupRequest decode(ByteBuf in) {
        LookupRequest r = new LookupRequest(Wire.readString(in, "lookup.path"), Wire.readBoolean(in, "lookup.append"));
        Wire.expectEnd(in, "lookup request");
        return r;
    }
}
