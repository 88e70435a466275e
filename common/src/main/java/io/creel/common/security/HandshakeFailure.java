package io.creel.common.security;

/**
 * Why an authentication handshake could not complete: the peer broke the protocol, refused, or
 * could not prove the cluster secret. The message says which, in words fit for the one error a
 * refused peer sees; transports wrap it in an UNAUTHENTICATED {@link io.creel.common.error.CreelException}.
 */
public final class HandshakeFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A failure saying {@code message} (a transport may find the handshake broken in ways of its own). */
    public HandshakeFailure(String message) {
        super(message, null, false, false);
    }
}
