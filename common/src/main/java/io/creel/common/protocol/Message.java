package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/** A request or reply body that can write itself to a buffer. Each type has a static {@code decode(ByteBuf)}. */
public interface Message {
    void encode(ByteBuf out);
}
