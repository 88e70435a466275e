package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A body with nothing in it (status request, write acknowledgement). */
public record Empty() implements Message {
    public static final Empty INSTANCE = new Empty();

    @Override
    public void encode(ByteBuf out) {
        // nothing to write
    }

    public static Empty decode(ByteBuf in) {
        Wire.expectEnd(in, "empty message");
        return INSTANCE;
    }
}
