package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A request naming an identity: CREDENTIAL_REVOKE. */
public record NameRequest(String name) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, name);
    }

    public static NameRequest decode(ByteBuf in) {
        NameRequest r = new NameRequest(Wire.readString(in, "identity.name"));
        Wire.expectEnd(in, "name request");
        return r;
    }
}
