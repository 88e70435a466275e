package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A node's owner, group and mode, as a namenode that enforces permissions tells them: the owner
 * and group are identity names, the mode nine bits as in {@code chmod} (owner, group, other; read
 * 4, write 2, execute 1). The namenode enforces read and write; execute is kept so that Hadoop's
 * {@code setPermission} reads back what it set.
 *
 * @param owner the owning identity's name
 * @param group the node's group
 * @param mode  permission bits, 0 to 0777
 */
public record NodeAccess(String owner, String group, int mode) {
    /** Every permission bit. */
    public static final int ALL = 0777;

    /** {@code mode} as {@code ls -l} shows it after the type: {@code rwxr-x---}. */
    public static String modeText(int mode) {
        StringBuilder b = new StringBuilder(9);
        for (int shift = 6; shift >= 0; shift -= 3) {
            int bits = mode >> shift;
            b.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
        }
        return b.toString();
    }

    /**
     * The mode {@code text} names: 1 to 4 octal digits (a leading 0 allowed), at most 0777.
     *
     * @throws IllegalArgumentException otherwise
     */
    public static int parseMode(String text) {
        if (text == null || !text.matches("[0-7]{1,4}")) {
            throw new IllegalArgumentException("a mode is octal, 0 to 0777, as chmod takes it: " + text);
        }
        int mode = Integer.parseInt(text, 8);
        if (mode > ALL) {
            throw new IllegalArgumentException("a mode is octal, 0 to 0777 (no setuid, setgid or sticky bit): " + text);
        }
        return mode;
    }

    void encode(ByteBuf out) {
        Wire.writeString(out, owner);
        Wire.writeString(out, group);
        out.writeShort(mode);
    }

    static NodeAccess decode(ByteBuf in) {
        String owner = Wire.readString(in, "access.owner");
        String group = Wire.readString(in, "access.group");
        int mode = Wire.readUnsignedShort(in, "access.mode");
        if (mode > ALL) {
            throw new ProtocolException("node mode " + Integer.toOctalString(mode) + " is beyond 0777");
        }
        return new NodeAccess(owner, group, mode);
    }

    @Override
    public String toString() {
        return owner + ":" + group + " " + modeText(mode);
    }
}
