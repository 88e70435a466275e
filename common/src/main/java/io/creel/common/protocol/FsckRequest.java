package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** Which nodes under {@code path} have lost data (blocks on dead or replaced storage servers)? */
public record FsckRequest(String path) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
    }

    public static FsckRequest decode(ByteBuf in) {
        FsckRequest r = new FsckRequest(Wire.readString(in, "fsck.path"));
        Wire.expectEnd(in, "fsck request");
        return r;
    }
}
