package io.creel.common.protocol;

/**
 * The frame layout shared by both planes.
 *
 * <pre>
 *  int32  length      bytes after this field
 *  uint8  opcode      {@link Opcode}
 *  uint8  flags       bit 0: this frame is a response
 *  int64  request id  chosen by the caller, echoed in the response
 *  ...    body        a request message; or for a response: uint16 status (0 = ok, else an
 *                     ErrorCode) followed by the reply message or by an error text
 * </pre>
 */
public final class Frame {
    /** Size of the length field. */
    public static final int LENGTH_FIELD = 4;
    /** Bytes after the length field before the body: opcode, flags, request id. */
    public static final int HEADER_AFTER_LENGTH = 1 + 1 + 8;
    /** Whole header including the length field. */
    public static final int HEADER = LENGTH_FIELD + HEADER_AFTER_LENGTH;
    /** Flag bit marking a response. */
    public static final int FLAG_RESPONSE = 1;
    /** Response status meaning success. */
    public static final int STATUS_OK = 0;

    private Frame() {
    }
}
