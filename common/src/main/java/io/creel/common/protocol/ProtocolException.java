package io.creel.common.protocol;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;

/** Bytes from a peer that do not form a valid message; the connection that sent them is closed. */
public final class ProtocolException extends CreelException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String message) {
        super(ErrorCode.PROTOCOL, message);
    }
}
