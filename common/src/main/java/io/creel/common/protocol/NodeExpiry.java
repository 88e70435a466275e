package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * What the namenode says about an expiring node (see {@link Expiry}): who owns it and how close it
 * is to going away, so {@code fs stat} and {@code fs ls -l} can show it.
 *
 * @param owner         the owning client's session id ({@link RequestIdentity#clientText()})
 * @param session       whether the grace is the namenode's session timeout (else the node's time to live)
 * @param graceMillis   how long after its owner was last heard the node is removed
 * @param silentMillis  how long ago this namenode last heard the owner (a restart counts as hearing it)
 */
public record NodeExpiry(String owner, boolean session, long graceMillis, long silentMillis) {
    void encode(ByteBuf out) {
        Wire.writeString(out, owner);
        Wire.writeBoolean(out, session);
        out.writeLong(graceMillis);
        out.writeLong(silentMillis);
    }

    static NodeExpiry decode(ByteBuf in) {
        return new NodeExpiry(Wire.readString(in, "expiry.owner"), Wire.readBoolean(in, "expiry.session"),
                Wire.readNonNegativeLong(in, "expiry.grace"), Wire.readNonNegativeLong(in, "expiry.silent"));
    }
}
