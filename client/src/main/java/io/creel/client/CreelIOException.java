package io.creel.client;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;

/**
 * How the java.io views report a failed Creel operation: the {@link CreelException}'s message,
 * with the exception itself as the cause and its code at hand.
 */
public final class CreelIOException extends IOException {
    private static final long serialVersionUID = 1L;

    public CreelIOException(CreelException cause) {
        super(cause.getMessage(), cause);
    }

    /** The error code of the failed operation. */
    public ErrorCode code() {
        return ((CreelException) getCause()).code();
    }

    /** The failed operation's exception. */
    public CreelException creelException() {
        return (CreelException) getCause();
    }
}
