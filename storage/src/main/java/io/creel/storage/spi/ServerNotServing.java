package io.creel.storage.spi;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;

/**
 * A transport found that the storage server itself is not serving (stopped, or no sign of life):
 * UNAVAILABLE, as a remote client would see it, but not the transport's fault — every other
 * transport would fail alike, so none is tried instead and the transport stays the choice for the
 * server (a restarted persistent server is reached the cheap way again).
 */
public final class ServerNotServing extends CreelException {
    private static final long serialVersionUID = 1L;

    public ServerNotServing(String message) {
        super(ErrorCode.UNAVAILABLE, message);
    }
}
