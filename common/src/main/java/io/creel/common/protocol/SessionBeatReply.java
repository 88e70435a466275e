package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The answer to a client's session heartbeat ({@link Opcode#SESSION_BEAT}, an identified request with
 * an {@link Empty} body: the frame's identity names the client).
 *
 * @param ownedNodes    expiring nodes the client owns on this namenode
 * @param timeoutMillis the namenode's session timeout ({@code creel.namenode.session.timeout}), so a
 *                      client can warn when it beats too seldom for it
 */
public record SessionBeatReply(long ownedNodes, long timeoutMillis) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeLong(ownedNodes).writeLong(timeoutMillis);
    }

    public static SessionBeatReply decode(ByteBuf in) {
        SessionBeatReply r = new SessionBeatReply(Wire.readNonNegativeLong(in, "beat.owned"),
                Wire.readNonNegativeLong(in, "beat.timeout"));
        Wire.expectEnd(in, "session beat reply");
        return r;
    }
}
