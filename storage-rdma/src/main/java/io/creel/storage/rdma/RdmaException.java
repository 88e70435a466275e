package io.creel.storage.rdma;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A failed RDMA call: what kind of failure, and the peer it concerns when there is one. The message
 * names the operation, the peer and the cause, written for the person reading the log.
 */
public final class RdmaException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong; the storage tier maps each kind to one of Creel's error codes. */
    public enum Kind {
        /** No RDMA here (library, device files or device missing) or the device failed. */
        NOT_AVAILABLE,
        /** The peer cannot be reached, refused, or the connection to it was lost. */
        UNREACHABLE,
        /** A connect or an operation did not complete within its timeout. */
        TIMEOUT,
        /** The listener refused the connection: the cluster secret was not proven ({@link ConnectionAdmission}). */
        REFUSED,
        /** The peer refused access to its memory (wrong rkey, range outside the registered region). */
        REMOTE_ACCESS,
        /** The caller passed an argument out of range; nothing was posted. */
        INVALID_ARGUMENT,
        /** The connection or device was closed by this side. */
        CLOSED,
        /** A local verbs failure (posting, completion with a local error). */
        INTERNAL
    }

    private final Kind kind;
    private final transient InetSocketAddress peer;

    /** {@link Kind#NOT_AVAILABLE}: no RDMA in this process, for {@code why} (no peer involved). */
    public static RdmaException notAvailable(String why) {
        return new RdmaException(Kind.NOT_AVAILABLE, null, why);
    }

    public RdmaException(Kind kind, InetSocketAddress peer, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.peer = peer;
    }

    public RdmaException(Kind kind, InetSocketAddress peer, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.peer = peer;
    }

    /** The kind of failure. */
    public Kind kind() {
        return kind;
    }

    /** The peer the failure concerns, or null for a failure of this side alone. */
    public InetSocketAddress peer() {
        return peer;
    }

    /** Finds the RdmaException inside completion wrappers, or null when there is none. */
    public static RdmaException find(Throwable t) {
        for (Throwable cur = t; cur != null; cur = cur.getCause()) {
            if (cur instanceof RdmaException e) {
                return e;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "RdmaException(" + kind + "): " + getMessage();
    }
}
