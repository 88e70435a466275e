package io.creel.storage.nvmf.tcp.pdu;

/**
 * The NVMe/TCP PDU types, with the header length (HLEN) each must carry and which way it flows.
 */
public enum PduType {
    IC_REQ(0x00, 128, true, false),
    IC_RESP(0x01, 128, false, false),
    H2C_TERM_REQ(0x02, 24, true, false),
    C2H_TERM_REQ(0x03, 24, false, false),
    CAPSULE_CMD(0x04, 72, true, true),
    CAPSULE_RESP(0x05, 24, false, true),
    H2C_DATA(0x06, 24, true, true),
    C2H_DATA(0x07, 24, false, true),
    R2T(0x09, 24, false, true);

    private static final PduType[] BY_CODE = new PduType[16];

    static {
        for (PduType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int headerLength;
    private final boolean hostToController;
    private final boolean digestible;

    PduType(int code, int headerLength, boolean hostToController, boolean digestible) {
        this.code = code;
        this.headerLength = headerLength;
        this.hostToController = hostToController;
        this.digestible = digestible;
    }

    /** The PDU-type byte. */
    public int code() {
        return code;
    }

    /** HLEN: common header plus PDU specific header, without the header digest. */
    public int headerLength() {
        return headerLength;
    }

    /** Whether a host sends this type (else a controller does). */
    public boolean isHostToController() {
        return hostToController;
    }

    /** Whether header and data digests apply to this type once negotiated (not to IC and TermReq PDUs). */
    public boolean isDigestible() {
        return digestible;
    }

    /** Whether this type may carry data after its header. */
    public boolean mayCarryData() {
        return this == CAPSULE_CMD || this == H2C_DATA || this == C2H_DATA;
    }

    /** The type for a PDU-type byte, or null if there is none. */
    public static PduType of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
