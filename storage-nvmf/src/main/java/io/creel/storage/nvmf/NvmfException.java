package io.creel.storage.nvmf;

import io.creel.storage.nvmf.nvme.NvmeStatus;
import java.util.Optional;

/**
 * A failed NVMe-over-Fabrics operation: what kind of failure it was, a message naming the command,
 * the target and the queue, and for {@link Kind#STATUS} the NVMe status the controller returned.
 */
public class NvmfException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, coarsely enough to decide what to do about it. */
    public enum Kind {
        /** The controller completed the command with a non-zero NVMe status; see {@link #status()}. */
        STATUS,
        /** No answer from the target within the command (or connect) timeout. */
        TIMEOUT,
        /** The connection to the target could not be made, or was lost or closed with the command unfinished. */
        CONNECTION,
        /** The target broke the NVMe/TCP or NVMe-oF protocol; the queue was closed. */
        PROTOCOL,
        /** A data digest did not match: the bytes may be corrupt, the command failed, the queue lives on. */
        DATA_DIGEST,
        /** The caller asked for something impossible (misaligned length, beyond the namespace, too large). */
        INVALID_ARGUMENT
    }

    private final Kind kind;
    private final transient NvmeStatus status;

    public NvmfException(Kind kind, String message) {
        this(kind, message, null, null);
    }

    public NvmfException(Kind kind, String message, Throwable cause) {
        this(kind, message, null, cause);
    }

    /** A {@link Kind#STATUS} failure carrying the decoded NVMe status. */
    public NvmfException(NvmeStatus status, String message) {
        this(Kind.STATUS, message, status, null);
    }

    private NvmfException(Kind kind, String message, NvmeStatus status, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.status = status;
    }

    public Kind kind() {
        return kind;
    }

    /** The controller's status for {@link Kind#STATUS}, empty for every other kind. */
    public Optional<NvmeStatus> status() {
        return Optional.ofNullable(status);
    }

    /** Finds the NvmfException inside a completion or execution wrapper, or null if there is none. */
    public static NvmfException find(Throwable t) {
        Throwable cur = t;
        while (cur != null) {
            if (cur instanceof NvmfException e) {
                return e;
            }
            cur = cur.getCause();
        }
        return null;
    }

    @Override
    public String toString() {
        return "NvmfException(" + kind + "): " + getMessage();
    }
}
