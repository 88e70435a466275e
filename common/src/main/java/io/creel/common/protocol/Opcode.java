package io.creel.common.protocol;

/** What a request asks for. The numeric codes are the wire format: never renumber, only add. */
public enum Opcode {
    // metadata plane (namenode)
    CREATE(1),
    LOOKUP(2),
    REMOVE(3),
    MOVE(4),
    MAP(5),
    COMMIT(6),
    REGISTER(7),
    HEARTBEAT(8),
    STATUS(9),
    DECOMMISSION(10),
    FSCK(11),
    /** Read-only MAP of several consecutive blocks at once ({@link LocateRequest}). */
    LOCATE(12),
    /** A client's session heartbeat: keeps the expiring nodes it owns ({@link Expiry}); identified, empty body. */
    SESSION_BEAT(17),
    /** An expiring node's owner hands it to another session or makes it permanent ({@link HandOverRequest}). */
    HAND_OVER(18),
    // data plane (storage server)
    BLOCK_READ(20),
    BLOCK_WRITE(21),
    /** Claim a block for an allocation's tag without writing bytes (a client that writes elsewhere: NVMe-oF). */
    BLOCK_CLAIM(22),
    // storage-server control (namenode to storage server)
    REGION_GRANT(30),
    REGION_RELEASE(31),
    REGION_SYNC(32);

    private static final Opcode[] BY_CODE = new Opcode[256];

    static {
        for (Opcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    private final int code;

    Opcode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The opcode for a wire value, or {@code null} if there is none. */
    public static Opcode ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
