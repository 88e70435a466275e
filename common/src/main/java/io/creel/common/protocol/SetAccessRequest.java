package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * SET_ACCESS: change a node's owner, group or mode ({@code fs chmod}, {@code fs chown}, Hadoop's
 * {@code setPermission} and {@code setOwner}). The reply is a {@link NodeReply}.
 *
 * @param path  the node
 * @param owner the new owner, or "" to keep it (only the superuser changes owners)
 * @param group the new group, or "" to keep it
 * @param mode  the new mode (0 to 0777), or {@link #KEEP}
 */
public record SetAccessRequest(String path, String owner, String group, int mode) implements Message {
    /** The mode that leaves the node's mode as it is. */
    public static final int KEEP = -1;

    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        Wire.writeString(out, owner);
        Wire.writeString(out, group);
        out.writeInt(mode);
    }

    public static SetAccessRequest decode(ByteBuf in) {
        SetAccessRequest r = new SetAccessRequest(Wire.readString(in, "access.path"), Wire.readString(in, "access.owner"),
                Wire.readString(in, "access.group"), Wire.readInt(in, "access.mode", KEEP, NodeAccess.ALL));
        Wire.expectEnd(in, "set-access request");
        return r;
    }
}
