package io.creel.namenode.retry;

import io.creel.common.protocol.Message;
import io.netty.buffer.ByteBuf;

/** A reply kept as the bytes of its encoding (an answer restored from the log), sent as they are. */
record EncodedReply(byte[] bytes) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeBytes(bytes);
    }
}
