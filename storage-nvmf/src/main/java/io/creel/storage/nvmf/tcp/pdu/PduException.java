package io.creel.storage.nvmf.tcp.pdu;

/**
 * A received PDU, or the order of PDUs, breaks the NVMe/TCP protocol. Carries what a TermReq
 * reports: the Fatal Error Status and the Fatal Error Information (for a bad header field, the
 * byte offset of that field in the PDU header).
 */
public final class PduException extends Exception {
    private static final long serialVersionUID = 1L;

    private final FatalErrorStatus status;
    private final int fieldOffset;

    public PduException(FatalErrorStatus status, int fieldOffset, String message) {
        super(message);
        this.status = status;
        this.fieldOffset = fieldOffset;
    }

    public FatalErrorStatus status() {
        return status;
    }

    /** FEI: the byte offset of the offending header field, or 0 when no single field is at fault. */
    public int fieldOffset() {
        return fieldOffset;
    }
}
