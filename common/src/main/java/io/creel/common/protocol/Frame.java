package io.creel.common.protocol;

/**
 * The frame layout shared by both planes.
 *
 * <pre>
 *  int32  length      bytes after this field
 *  uint8  opcode      {@link RequestType}: a core {@link Opcode} or a tier's {@link TierOpcode}
 *  uint8  flags       bit 0: this frame is a response; bit 1: a request identity follows;
 *                     bits 4-7: the wire protocol version the sender speaks, minus 1
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
 * <p>Every frame carries its sender's wire protocol version ({@link #WIRE_VERSION}) in the high
 * bits of its flags, so releases that cannot understand each other find out at the first request
 * and say so instead of misreading bytes: a server answers a request of a newer version with a
 * PROTOCOL error naming both versions, a client refuses a reply of a newer version. Version 1 is
 * all zeros there, which is what releases before the field sent.
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
    /** The wire protocol version of this release. Raise it when a frame or message changes layout. */
    public static final int WIRE_VERSION = 2;
    /** Where the version sits in the flags. */
    private static final int VERSION_SHIFT = 4;
    /** Response status meaning success. */
    public static final int STATUS_OK = 0;
    /** Size of the verdict that ends a payload reply. */
    public static final int VERDICT = 2;

    private Frame() {
    }

    /** The flag bits that say this release's {@link #WIRE_VERSION}. */
    public static int versionFlags() {
        return (WIRE_VERSION - 1) << VERSION_SHIFT;
    }

    /** The wire protocol version a frame with these flags was written in. */
    public static int versionOf(int flags) {
        return (flags >>> VERSION_SHIFT) + 1;
    }
}
