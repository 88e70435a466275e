package io.creel.common.rpc;

import io.netty.buffer.ByteBuf;

/**
 * Turns a successful reply body into a value. Runs on the connection's event loop while the
 * frame is still held; the frame is released right after, so the decoder copies what it keeps.
 */
@FunctionalInterface
public interface ReplyDecoder<T> {
    T decode(ByteBuf body);
}
