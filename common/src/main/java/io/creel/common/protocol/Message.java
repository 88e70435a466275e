package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** A request or reply body that can write itself to a buffer. Each type has a static {@code decode(ByteBuf)}. */
public interface Message {
    void encode(ByteBuf out);

    /** This message's encoding as an array (for keeping it, as a namenode keeps answers; not for the hot path). */
    default byte[] encoded() {
        ByteBuf b = Unpooled.buffer(128);
        try {
            encode(b);
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        } finally {
            b.release();
        }
    }
}
