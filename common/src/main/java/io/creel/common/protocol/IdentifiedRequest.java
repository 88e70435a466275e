package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A request sent with its {@link RequestIdentity}: framed with {@link Frame#FLAG_IDENTIFIED}, the
 * identity first, then {@code request}'s body. A server that keeps no replies reads past the
 * identity and serves the request as any other.
 */
public record IdentifiedRequest(RequestIdentity identity, Message request) implements Message {
    @Override
    public void encode(ByteBuf out) {
        identity.encode(out);
        request.encode(out);
    }
}
