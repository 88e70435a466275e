package io.creel.storage.nvmf.tcp.pdu;

/** Fatal Error Status (FES) codes of H2CTermReq and C2HTermReq PDUs. */
public enum FatalErrorStatus {
    INVALID_PDU_HEADER_FIELD(0x01, "Invalid PDU Header Field"),
    PDU_SEQUENCE_ERROR(0x02, "PDU Sequence Error"),
    HEADER_DIGEST_ERROR(0x03, "Header Digest Error"),
    DATA_TRANSFER_OUT_OF_RANGE(0x04, "Data Transfer Out of Range"),
    DATA_TRANSFER_LIMIT_EXCEEDED(0x05, "R2T Limit / Data Transfer Limit Exceeded"),
    UNSUPPORTED_PARAMETER(0x06, "Unsupported Parameter");

    private final int code;
    private final String description;

    FatalErrorStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    /** The name of a FES code as received, including codes this enum does not know. */
    public static String describe(int code) {
        for (FatalErrorStatus f : values()) {
            if (f.code == code) {
                return f.description;
            }
        }
        return String.format("unknown fatal error status %#x", code);
    }
}
