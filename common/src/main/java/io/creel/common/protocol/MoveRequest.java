package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** Move (rename) {@code source} to {@code target}, atomically; the target must not exist. */
public record MoveRequest(String source, String target) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, source);
        Wire.writeString(out, target);
    }

    public static MoveRequest decode(ByteBuf in) {
        MoveRequest r = new MoveRequest(Wire.readString(in, "move.source"), Wire.readString(in, "move.target"));
        Wire.expectEnd(in, "move request");
        return r;
    }
}
