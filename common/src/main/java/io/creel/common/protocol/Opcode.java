package io.creel.common.protocol;

/**
 * The core requests: what every Creel process may send or serve. The numeric codes are the wire
 * format: never renumber, only add. A request only one tier serves is not added here: the tier
 * declares it as a {@link TierOpcode} (codes {@link TierOpcode#FIRST} to {@link TierOpcode#LAST},
 * which this enum leaves free), so {@code common} stays closed to tiers.
 */
public enum Opcode implements RequestType {
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
    /** SYNC commits of many nodes in one request ({@link SyncManyRequest}). */
    SYNC_MANY(13),
    /** A client's session heartbeat: keeps the expiring nodes it owns ({@link Expiry}); identified, empty body. */
    SESSION_BEAT(17),
    /** An expiring node's owner hands it to another session or makes it permanent ({@link HandOverRequest}). */
    HAND_OVER(18),
    /** Keys of an ordered Table in order from a start key, with their inline values ({@link ScanRequest}). */
    SCAN(19),
    /** Change a node's owner, group or mode ({@link SetAccessRequest}). */
    SET_ACCESS(40),
    /** Superuser only: make a credential current at this namenode ({@link CredentialRecord}). */
    CREDENTIAL_PUT(41),
    /** Superuser only: revoke an identity's credential ({@link NameRequest}). */
    CREDENTIAL_REVOKE(42),
    /** Superuser only: the credentials this namenode knows ({@link CredentialList}). */
    CREDENTIAL_LIST(43),
    // data plane (storage server)
    BLOCK_READ(20),
    BLOCK_WRITE(21),
    // 22 to 29: tiers' own requests (TierOpcode), e.g. the nvmf tier's BLOCK_CLAIM (22)
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

    @Override
    public int code() {
        return code;
    }

    /**
     * The core opcode for a wire value, or {@code null} if there is none (a tier's code among them:
     * {@link OpcodeRegistry#ofCode} knows those too).
     */
    public static Opcode ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
