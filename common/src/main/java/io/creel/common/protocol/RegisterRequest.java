package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A storage server offers its blocks to a namenode. */
public record RegisterRequest(StorageServerInfo server) implements Message {
    @Override
    public void encode(ByteBuf out) {
        server.encode(out);
    }

    public static RegisterRequest decode(ByteBuf in) {
        RegisterRequest r = new RegisterRequest(StorageServerInfo.decode(in));
        Wire.expectEnd(in, "register request");
        return r;
    }
}
