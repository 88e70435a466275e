package io.creel.common.protocol;

/**
 * The frame layout shared by both planes.
 *
 * <pre>
 *  int32  length      bytes after this field
 *  uint8  opcode      {@link Opcode}
 *  uint8  flags       bit 0: this frame is a response; bit 1: a request identity follows
 *  int64  request id  chosen by the caller, echoed in the response
 *  [24]   identity    with bit 1 only: the {@link RequestIdentity} of a request that may be retried
 *  ...    body        a request message; or for a response: uint16 status (0 = ok, else an
 *                     ErrorCode) followed by the reply message or by an error text
 * </pre>
 *
 * <p>The request id matches a reply to its request on one connection; the identity names the
 * request across connections and namenode restarts, so a retry is answered, not applied twice.
 * Frames without bit 1 are read as before it existed.
 *
 * <p>A successful reply that carries a payload (a block read) is the status, the payload's bytes, and
 * a uint16 verdict: 0 if the bytes were valid while the sender copied them out, else the ErrorCode the
 * receiver fails the request with. The verdict comes last so that a sender can send straight from its
 * memory and decide afterwards (see {@code io.creel.common.rpc.PayloadCheck}).
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
    /** Flag bit of a request whose {@link RequestIdentity} precedes its body. */
    public static final int FLAG_IDENTIFIED = 2;
    /** Response status meaning success. */
    public static final int STATUS_OK = 0;
    /** Size of the verdict that ends a payload reply. */
    public static final int VERDICT = 2;

    private Frame() {
    }
}
