package io.creel.storage.nvmf.nvme;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The 1024-byte data of a Fabrics Connect command: Host Identifier, Controller ID, Subsystem NQN
 * and Host NQN.
 */
public final class ConnectData {
    /** Size of the Connect data. */
    public static final int LENGTH = 1024;
    /** Controller ID asking the subsystem for any controller (dynamic controller model). */
    public static final int ANY_CONTROLLER = 0xFFFF;
    /** Longest NQN in bytes (the field is 256 bytes, NUL-terminated). */
    public static final int MAX_NQN_BYTES = 223;

    private static final int HOSTID = 0;
    private static final int CNTLID = 16;
    private static final int SUBNQN = 256;
    private static final int HOSTNQN = 512;
    private static final int NQN_FIELD = 256;

    private ConnectData() {
    }

    /** Encodes the Connect data into a new little-endian heap buffer of {@link #LENGTH} bytes. */
    public static ByteBuffer encode(UUID hostId, int controllerId, String subsystemNqn, String hostNqn) {
        ByteBuffer b = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        // the UUID goes in as its 16 bytes in network order, as Linux and SPDK store it
        b.order(ByteOrder.BIG_ENDIAN).putLong(HOSTID, hostId.getMostSignificantBits())
                .putLong(HOSTID + 8, hostId.getLeastSignificantBits()).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(CNTLID, (short) controllerId);
        putNqn(b, SUBNQN, subsystemNqn, "subsystem NQN");
        putNqn(b, HOSTNQN, hostNqn, "host NQN");
        return b;
    }

    /** Checks an NQN is non-empty ASCII-safe UTF-8 that fits its field. */
    public static void checkNqn(String nqn, String what) {
        byte[] bytes = nqn.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length > MAX_NQN_BYTES) {
            throw new IllegalArgumentException(what + " must be 1.." + MAX_NQN_BYTES + " bytes of UTF-8, not "
                    + bytes.length + ": '" + nqn + "'");
        }
        for (byte c : bytes) {
            if (c == 0) {
                throw new IllegalArgumentException(what + " must not contain NUL: '" + nqn + "'");
            }
        }
    }

    private static void putNqn(ByteBuffer b, int offset, String nqn, String what) {
        checkNqn(nqn, what);
        byte[] bytes = nqn.getBytes(StandardCharsets.UTF_8);
        b.put(offset, bytes, 0, bytes.length);
    }

    /** Host Identifier of encoded Connect data. */
    public static UUID hostId(ByteBuffer data) {
        ByteBuffer b = data.duplicate().order(ByteOrder.BIG_ENDIAN);
        int p = data.position();
        return new UUID(b.getLong(p + HOSTID), b.getLong(p + HOSTID + 8));
    }

    /** Controller ID of encoded Connect data. */
    public static int controllerId(ByteBuffer data) {
        return data.duplicate().order(ByteOrder.LITTLE_ENDIAN).getShort(data.position() + CNTLID) & 0xFFFF;
    }

    public static String subsystemNqn(ByteBuffer data) {
        return nqnAt(data, SUBNQN);
    }

    public static String hostNqn(ByteBuffer data) {
        return nqnAt(data, HOSTNQN);
    }

    private static String nqnAt(ByteBuffer data, int offset) {
        int p = data.position() + offset;
        int len = 0;
        while (len < NQN_FIELD && data.get(p + len) != 0) {
            len++;
        }
        byte[] bytes = new byte[len];
        data.get(p, bytes, 0, len);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
