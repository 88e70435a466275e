package io.creel.common.error;

/**
 * Every failure Creel reports, with a stable numeric code that travels on the wire.
 *
 * <p>Codes are part of the protocol: never renumber one, only add new ones.
 */
public enum ErrorCode {
    /** The path or node does not exist. */
    NOT_FOUND(1),
    /** A node with that name exists already (File first-create-wins, Directory, Table, Bag). */
    ALREADY_EXISTS(2),
    /** A name or path breaks a naming rule; the message names the rule. */
    INVALID_NAME(3),
    /** The parent cannot hold a child of this type (e.g. a KeyValue outside a Table). */
    INVALID_PARENT(4),
    /** The operation needs a container (Directory, Table, Bag) and the node is not one. */
    NOT_A_CONTAINER(5),
    /** A non-recursive delete of a container that still has children. */
    NOT_EMPTY(6),
    /** Another writer holds the node's write lease, or the caller holds no lease. */
    LEASE_CONFLICT(7),
    /** No storage class has a free block anywhere in the cluster. */
    OUT_OF_SPACE(8),
    /** A block reference no longer names this node's data (the block was freed and reused). */
    STALE_BLOCK(9),
    /** An argument is out of range or inconsistent. */
    INVALID_ARGUMENT(10),
    /** A peer sent bytes that do not form a valid message. */
    PROTOCOL(11),
    /** A connect or request did not complete within its timeout. */
    TIMEOUT(12),
    /** A server could not be reached or the connection was lost. */
    UNAVAILABLE(13),
    /** A move between namenode partitions, a move into its own subtree, and similar. */
    UNSUPPORTED(14),
    /** Configuration key unknown or value invalid. */
    CONFIGURATION(15),
    /** The server failed while serving a valid request (I/O error and the like). */
    INTERNAL(16),
    /** A storage server the block lives on is not registered or not live. */
    SERVER_UNKNOWN(17),
    /** A path or file is too long, too deep, or a limit was reached. */
    LIMIT_EXCEEDED(18),
    /** The peer did not prove it knows the cluster secret (or did not try); the connection is closed. */
    UNAUTHENTICATED(19),
    /**
     * The authenticated identity may not do this to this node (its owner and mode say no), or the
     * request is for the cluster's own daemons and administrators only; the message names the
     * path and the identity.
     */
    PERMISSION_DENIED(20);

    private static final ErrorCode[] BY_CODE;

    static {
        int max = 0;
        for (ErrorCode c : values()) {
            max = Math.max(max, c.code);
        }
        BY_CODE = new ErrorCode[max + 1];
        for (ErrorCode c : values()) {
            BY_CODE[c.code] = c;
        }
    }

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /** The wire value. */
    public int code() {
        return code;
    }

    /** Decodes a wire value; unknown codes map to {@link #INTERNAL} so a newer server never breaks a client. */
    public static ErrorCode of(int code) {
        if (code > 0 && code < BY_CODE.length && BY_CODE[code] != null) {
            return BY_CODE[code];
        }
        return INTERNAL;
    }
}
