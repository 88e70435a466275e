package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** An admin request naming a storage server by {@code host:port} (decommission). */
public record AddressRequest(String address) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, address);
    }

    public static AddressRequest decode(ByteBuf in) {
        AddressRequest r = new AddressRequest(Wire.readString(in, "admin.address"));
        Wire.expectEnd(in, "address request");
        return r;
    }
}
