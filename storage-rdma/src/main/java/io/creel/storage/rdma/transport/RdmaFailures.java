package io.creel.storage.rdma.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.rdma.RdmaException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns failures of the RDMA layer into the errors transports report. None of them is an error
 * about the data (STALE_BLOCK, NOT_FOUND, INVALID_ARGUMENT): a broken RDMA path must make the
 * client fall back to the next transport, and only the tag checks (which the transport raises
 * itself) say anything about the block.
 *
 * <table>
 *   <caption>RDMA failure kinds and the error codes they become</caption>
 *   <tr><th>kind</th><th>code</th><th>why</th></tr>
 *   <tr><td>UNREACHABLE, NOT_AVAILABLE, CLOSED</td><td>UNAVAILABLE</td><td>the path or the peer is gone</td></tr>
 *   <tr><td>REMOTE_ACCESS</td><td>UNAVAILABLE</td><td>the server's registration changed (it restarted):
 *       the path is stale, the block is not</td></tr>
 *   <tr><td>REFUSED</td><td>UNAVAILABLE</td><td>the exporter did not admit this client (the cluster
 *       secret); the server's TCP port, authenticated too, decides for itself</td></tr>
 *   <tr><td>TIMEOUT</td><td>TIMEOUT</td><td>no completion within the operation timeout</td></tr>
 *   <tr><td>INVALID_ARGUMENT, INTERNAL</td><td>INTERNAL</td><td>a fault of this transport, not of the
 *       caller's range (ranges are checked before anything is posted)</td></tr>
 * </table>
 */
final class RdmaFailures {
    private RdmaFailures() {
    }

    /** The code an RDMA failure kind becomes. */
    static ErrorCode code(RdmaException.Kind kind) {
        return switch (kind) {
            case UNREACHABLE, NOT_AVAILABLE, CLOSED, REMOTE_ACCESS -> ErrorCode.UNAVAILABLE;
            // The server's RDMA port refused this client; its TCP port (authenticated too) may still serve it.
            case REFUSED -> ErrorCode.UNAVAILABLE;
            case TIMEOUT -> ErrorCode.TIMEOUT;
            case INVALID_ARGUMENT, INTERNAL -> ErrorCode.INTERNAL;
        };
    }

    /**
     * {@code failure} as a {@link CreelException}: an RDMA failure becomes its code with
     * {@code what} ("rdma read of block 5 from storage server h:p") in front; a CreelException
     * (a tag check, a pool timeout) stays as it is; anything else is INTERNAL.
     */
    static CreelException of(Throwable failure, String what) {
        Throwable t = unwrap(failure);
        if (t instanceof CreelException c) {
            return c;
        }
        RdmaException r = RdmaException.find(t);
        if (r != null) {
            return new CreelException(code(r.kind()), what + " failed: " + r.getMessage(), r);
        }
        return new CreelException(ErrorCode.INTERNAL, what + " failed: " + t, t);
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
            cur = cur.getCause();
        }
        return cur;
    }
}
