package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * An expiring node's owner gives it to another client session, or makes it permanent
 * ({@link Opcode#HAND_OVER}, identified: only the current owner may). The reply is a
 * {@link NodeReply} describing the node as it is afterwards.
 *
 * @param path     the node
 * @param newOwner the session id of the new owner ({@link RequestIdentity#clientText()}); ignored
 *                 when {@code expiry} is {@link Expiry#NONE}
 * @param expiry   how the node expires from now on; {@link Expiry#NONE} makes it permanent
 */
public record HandOverRequest(String path, String newOwner, Expiry expiry) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        Wire.writeString(out, newOwner);
        expiry.encode(out);
    }

    public static HandOverRequest decode(ByteBuf in) {
        HandOverRequest r = new HandOverRequest(Wire.readString(in, "handover.path"),
                Wire.readString(in, "handover.owner"), Expiry.decode(in, "handover.expiry"));
        Wire.expectEnd(in, "hand-over request");
        return r;
    }
}
