package io.creel.storage.rdma.rpc;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.security.ClientAuthentication;
import io.creel.common.security.HandshakeFailure;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.time.Duration;

/**
 * The client's end of the authentication handshake on an {@code rdma://} connection: the
 * connection's first two messages are HELLO and PROOF ({@link ClientAuthentication}'s bytes), each
 * answered in its own exchange (CHALLENGE, then ACCEPTED or REFUSED), before any request is sent.
 * Every way it can fail is one UNAUTHENTICATED error worded as over TCP.
 */
final class RdmaClientHandshake {
    /** Carries one message and returns the answer to it, as the connection's first exchanges. */
    interface Carrier {
        /**
         * Sends {@code message} (not released here) and waits for its answer until {@code deadlineNanos}
         * ({@link System#nanoTime()}).
         *
         * @return the answer's bytes, or null when the deadline passed first
         * @throws IOException the connection broke, saying how
         */
        ByteBuf exchange(ByteBuf message, long deadlineNanos) throws IOException;
    }

    private RdmaClientHandshake() {
    }

    /**
     * Runs the handshake with {@code remote} within {@code timeout}; returns once both ends proved the
     * secret.
     *
     * @throws CreelException UNAUTHENTICATED, saying why
     */
    static void run(HostPort remote, ClientAuthentication auth, Duration timeout, Carrier carrier) {
        long deadline = System.nanoTime() + timeout.toNanos();
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        try {
            ByteBuf challenge = send(carrier, auth.hello(alloc), deadline, timeout);
            if (!auth.challengeReadable(challenge)) {
                throw new HandshakeFailure("the server's answer to HELLO is cut short");
            }
            ByteBuf verdict = send(carrier, auth.answerChallenge(challenge, alloc), deadline, timeout);
            if (!auth.verdictReadable(verdict)) {
                throw new HandshakeFailure("the server's verdict on the proof is cut short");
            }
            auth.readVerdict(verdict);
        } catch (HandshakeFailure e) {
            throw new CreelException(ErrorCode.UNAUTHENTICATED, "cannot authenticate to " + remote + ": "
                    + e.getMessage());
        } catch (IOException e) {
            throw new CreelException(ErrorCode.UNAUTHENTICATED, "cannot authenticate to " + remote + ": "
                    + e.getMessage() + " (is authentication on there, and is this the server's port?)", e);
        }
    }

    private static ByteBuf send(Carrier carrier, ByteBuf message, long deadline, Duration timeout)
            throws IOException {
        ByteBuf answer;
        try {
            answer = carrier.exchange(message, deadline);
        } finally {
            message.release();
        }
        if (answer == null) {
            throw new HandshakeFailure("no answer to the authentication handshake within " + timeout.toMillis()
                    + " ms");
        }
        return answer;
    }
}
