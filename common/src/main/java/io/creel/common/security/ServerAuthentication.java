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
    /** Length of the shortest HELLO (one that proves the cluster secret); see {@link #helloBytes}. */
    public static final int HELLO_BYTES = Handshake.OPENING;
    /** Length of a PROOF. */
    public static final int PROOF_BYTES = Handshake.PROOF;

    private final ClusterSecret secret;
    private ClusterSecret key;
    private Identity claimed;
    private Identity identity;
    private byte[] clientNonce;
    private byte[] serverNonce;
    private String certificateSubject;

    public ServerAuthentication(ClusterSecret secret) {
        this.secret = secret;
    }

    /**
     * The name in the verified TLS client certificate of this connection ({@link TlsContexts#subjectName}),
     * or {@code null} when it has none (no TLS, or no client certificate); set before {@link #challenge}.
     * Only then may a client prove its identity with the certificate (HELLO version 3).
     */
    public void certificateSubject(String name) {
        this.certificateSubject = name;
    }

    /**
     * Whether the bytes at {@code in}'s reader index (at least 4) open the handshake. A peer that
     * sent anything else is not authenticating (a client without a secret sending a request frame).
     */
    public static boolean opensHandshake(ByteBuf in) {
        return in.getInt(in.readerIndex()) == Handshake.MAGIC;
    }

    /**
     * How many bytes the HELLO at {@code in}'s reader index takes (a HELLO naming an identity is
     * longer), once at least 5 are there; wait for that many before {@link #challenge}.
     */
    public static int helloBytes(ByteBuf in) {
        return in.readableBytes() < 5 ? HELLO_BYTES : Handshake.helloLength(in);
    }

    /**
     * Reads the client's HELLO and returns the CHALLENGE to send.
     *
     * @throws HandshakeFailure a HELLO of another version or without the magic, or naming no valid identity
     */
    public ByteBuf challenge(ByteBuf hello, ByteBufAllocator alloc) {
        int version = hello.readableBytes() > 4 ? hello.getUnsignedByte(hello.readerIndex() + 4) : 0;
        boolean named = version == Handshake.VERSION_IDENTIFIED;
        clientNonce = Handshake.readOpening(hello, "HELLO", Handshake.VERSION_CERTIFICATE);
        if (version == Handshake.VERSION_CERTIFICATE) {
            if (certificateSubject == null) {
                throw new HandshakeFailure("its HELLO claims the identity of a TLS client certificate, and it presented "
                        + "none (TLS with " + SecurityKeys.TLS_CLIENT_AUTH.name() + " on is needed for that)");
            }
            try {
                claimed = new Identity(Identity.checkName(certificateSubject), false, Identity.CERTIFICATE);
            } catch (CreelException e) {
                throw new HandshakeFailure("its TLS certificate's subject names no valid identity: " + e.getMessage());
            }
            if (certificateSubject.equals(Identity.SUPERUSER)) {
                throw new HandshakeFailure(certificateSubject + " is proven with the cluster secret, not a certificate");
            }
            key = null;
        } else if (named) {
            if (hello.readableBytes() < Handshake.IDENTITY) {
                throw new HandshakeFailure("its HELLO names an identity but is " + hello.readableBytes()
                        + " bytes short of one");
            }
            int length = hello.readUnsignedByte();
            if (length == 0 || length > Identity.MAX_NAME_BYTES) {
                throw new HandshakeFailure("its HELLO names an identity of " + length + " bytes");
            }
            String name = hello.toString(hello.readerIndex(), length, java.nio.charset.StandardCharsets.UTF_8);
            hello.skipBytes(Identity.MAX_NAME_BYTES);
            byte[] id = new byte[Credential.ID_BYTES];
            hello.readBytes(id);
            try {
                claimed = Identity.named(name, java.util.HexFormat.of().formatHex(id));
            } catch (CreelException e) {
                throw new HandshakeFailure("its HELLO names no valid identity: " + e.getMessage());
            }
            if (name.equals(Identity.SUPERUSER)) {
                throw new HandshakeFailure(name + " is proven with the cluster secret, not a credential");
            }
            key = ClusterSecret.ofKey(secret.file(), secret.deriveKey(name, id));
        } else {
            claimed = Identity.CLUSTER;
            key = secret;
        }
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
        byte[] proofBytes = new byte[PROOF_BYTES];
        proof.readBytes(proofBytes);
        if (key == null) { // the certificate's identity: TLS proved it, there is no key to prove
            identity = claimed;
            return Handshake.accepted(alloc, new byte[PROOF_BYTES]);
        }
        if (!key.verify(ClusterSecret.Role.CLIENT, clientNonce, serverNonce, proofBytes)) {
            throw new HandshakeFailure(this.claimed.superuser()
                    ? "its proof of the cluster secret is wrong (a different secret?)"
                    : "its proof of identity " + this.claimed.name() + "'s credential is wrong (a wrong secret, or "
                    + "a credential of another cluster?)");
        }
        identity = this.claimed;
        return Handshake.accepted(alloc, key.proof(ClusterSecret.Role.SERVER, clientNonce, serverNonce));
    }

    /**
     * Who the peer proved to be: the cluster ({@link Identity#CLUSTER}), a credential's identity, or
     * its TLS certificate's; {@code null} until {@link #accept} has accepted. A credential's proof shows only that the
     * cluster's administrator issued it: whether it is still current (not revoked) is the
     * namenode's to check.
     */
    public Identity identity() {
        return identity;
    }

    /**
     * The error a request sent without authenticating is answered with (as an error reply to it, so
     * a client without a secret reads why), {@code where} naming the server and its address.
     */
    public static CreelException requestWithoutAuthentication(String where) {
        return new CreelException(ErrorCode.UNAUTHENTICATED, where + " requires authentication: set "
                + SecurityKeys.SECRET_FILE.name() + " to the cluster's secret file, or "
                + SecurityKeys.CREDENTIAL_FILE.name() + " to a credential an administrator issued");
    }

    /** REFUSED with {@code message} (cut to the longest the handshake carries): what a refused peer reads. */
    public static ByteBuf refusal(ByteBufAllocator alloc, String message) {
        return Handshake.refused(alloc, message);
    }
}
