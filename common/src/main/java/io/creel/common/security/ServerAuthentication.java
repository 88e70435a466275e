package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The server's end of one authentication {@link Handshake}, apart from any transport: how to read
 * the client's messages and what to answer. {@link ServerHandshake} runs it over a TCP connection,
 * the {@code rdma://} transport over RDMA messages; both send exactly these bytes. One instance per
 * connection, used by one thread at a time:
 * <ol>
 *   <li>{@link #opensHandshake} tells a HELLO from a request sent without authenticating;</li>
 *   <li>once {@link #HELLO_BYTES} are there, send what {@link #challenge} returns (the CHALLENGE);</li>
 *   <li>once {@link #PROOF_BYTES} are there, send what {@link #accept} returns (ACCEPTED, with this
 *   side's proof); from then on the peer is authenticated.</li>
 * </ol>
 * A failure throws {@link HandshakeFailure} saying what the peer did wrong; answer it with
 * {@link #refusal} and close.
 */
public final class ServerAuthentication {
    /** Length of a HELLO. */
    public static final int HELLO_BYTES = Handshake.OPENING;
    /** Length of a PROOF. */
    public static final int PROOF_BYTES = Handshake.PROOF;

    private final ClusterSecret secret;
    private byte[] clientNonce;
    private byte[] serverNonce;

    public ServerAuthentication(ClusterSecret secret) {
        this.secret = secret;
    }

    /**
     * Whether the bytes at {@code in}'s reader index (at least 4) open the handshake. A peer that
     * sent anything else is not authenticating (a client without a secret sending a request frame).
     */
    public static boolean opensHandshake(ByteBuf in) {
        return in.getInt(in.readerIndex()) == Handshake.MAGIC;
    }

    /**
     * Reads the client's HELLO and returns the CHALLENGE to send.
     *
     * @throws HandshakeFailure a HELLO of another version or without the magic
     */
    public ByteBuf challenge(ByteBuf hello, ByteBufAllocator alloc) {
        clientNonce = Handshake.readOpening(hello, "HELLO");
        serverNonce = Handshake.nonce();
        return Handshake.opening(alloc, serverNonce);
    }

    /**
     * Reads the client's PROOF; when it is right, returns ACCEPTED with this side's proof.
     *
     * @throws HandshakeFailure the proof is wrong
     */
    public ByteBuf accept(ByteBuf proof, ByteBufAllocator alloc) {
        if (serverNonce == null) {
            throw new IllegalStateException("the proof comes after the challenge");
        }
        byte[] claimed = new byte[PROOF_BYTES];
        proof.readBytes(claimed);
        if (!secret.verify(ClusterSecret.Role.CLIENT, clientNonce, serverNonce, claimed)) {
            throw new HandshakeFailure("its proof of the cluster secret is wrong (a different secret?)");
        }
        return Handshake.accepted(alloc, secret.proof(ClusterSecret.Role.SERVER, clientNonce, serverNonce));
    }

    /**
     * The error a request sent without authenticating is answered with (as an error reply to it, so
     * a client without a secret reads why), {@code where} naming the server and its address.
     */
    public static CreelException requestWithoutAuthentication(String where) {
        return new CreelException(ErrorCode.UNAUTHENTICATED, where + " requires authentication: set "
                + SecurityKeys.SECRET_FILE.name() + " to the cluster's secret file");
    }

    /** REFUSED with {@code message} (cut to the longest the handshake carries): what a refused peer reads. */
    public static ByteBuf refusal(ByteBufAllocator alloc, String message) {
        return Handshake.refused(alloc, message);
    }
}
