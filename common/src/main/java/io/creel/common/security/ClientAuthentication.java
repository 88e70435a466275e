package io.creel.common.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * The client's end of one authentication {@link Handshake}, apart from any transport: what to send
 * and how to read the server's answers. {@link ClientHandshake} runs it over a TCP connection, the
 * {@code rdma://} transport over RDMA messages; both send exactly these bytes. One instance per
 * connection, used by one thread at a time:
 * <ol>
 *   <li>send {@link #hello};</li>
 *   <li>once {@link #challengeReadable} holds, send what {@link #answerChallenge} returns (the PROOF);</li>
 *   <li>once {@link #verdictReadable} holds, {@link #readVerdict}: it returns only when the server
 *   accepted and proved the secret too.</li>
 * </ol>
 * Every reading method throws {@link HandshakeFailure} saying why the handshake cannot succeed.
 */
public final class ClientAuthentication {
    private final ClusterSecret secret;
    private final Credential credential;
    private final byte[] clientNonce = Handshake.nonce();
    private byte[] serverNonce;

    /** Proves the cluster secret: the cluster's own identity. */
    public ClientAuthentication(ClusterSecret secret) {
        this.secret = secret;
        this.credential = null;
    }

    /**
     * Claims the identity of this connection's TLS client certificate: no secret, and nothing to
     * check of the server's (TLS has authenticated it).
     */
    public static ClientAuthentication byCertificate() {
        return new ClientAuthentication();
    }

    private ClientAuthentication() {
        this.secret = null;
        this.credential = null;
    }

    /** Proves {@code credential}'s identity. */
    public ClientAuthentication(Credential credential) {
        this.secret = credential.key();
        this.credential = credential;
    }

    /** The HELLO that opens the handshake (naming the credential's identity, if this end has one). */
    public ByteBuf hello(ByteBufAllocator alloc) {
        return secret == null ? Handshake.certificateHello(alloc, clientNonce) : credential == null
                ? Handshake.opening(alloc, clientNonce) : Handshake.identifiedHello(alloc, clientNonce, credential);
    }

    /**
     * Whether {@code in} holds, from its reader index, the whole answer to HELLO: a CHALLENGE, or a
     * REFUSED (a server that refused the HELLO itself).
     */
    public boolean challengeReadable(ByteBuf in) {
        if (in.isReadable() && in.getUnsignedByte(in.readerIndex()) == Handshake.REFUSED) {
            return refusalReadable(in);
        }
        return in.readableBytes() >= Handshake.OPENING;
    }

    /**
     * Reads the server's answer to HELLO and returns the PROOF to send.
     *
     * @throws HandshakeFailure the server refused, or did not answer with a CHALLENGE
     */
    public ByteBuf answerChallenge(ByteBuf in, ByteBufAllocator alloc) {
        if (in.getUnsignedByte(in.readerIndex()) == Handshake.REFUSED) {
            throw new HandshakeFailure(readRefusal(in));
        }
        try {
            serverNonce = Handshake.readOpening(in, "the server's CHALLENGE");
        } catch (HandshakeFailure e) {
            throw new HandshakeFailure(e.getMessage() + " (is authentication on there, and is this the server's port?)");
        }
        if (secret == null) {
            return alloc.buffer(Handshake.PROOF).writeZero(Handshake.PROOF);
        }
        return alloc.buffer(Handshake.PROOF).writeBytes(secret.proof(ClusterSecret.Role.CLIENT, clientNonce,
                serverNonce));
    }

    /** Whether {@code in} holds, from its reader index, the whole verdict on the PROOF (or a byte no verdict starts with). */
    public boolean verdictReadable(ByteBuf in) {
        if (!in.isReadable()) {
            return false;
        }
        int verdict = in.getUnsignedByte(in.readerIndex());
        if (verdict == Handshake.ACCEPTED) {
            return in.readableBytes() >= 1 + Handshake.PROOF;
        }
        return verdict != Handshake.REFUSED || refusalReadable(in);
    }

    /**
     * Reads the verdict; returns when the server accepted and its own proof of the secret is right.
     *
     * @throws HandshakeFailure refused (with the server's reason), a wrong server proof, or no verdict
     */
    public void readVerdict(ByteBuf in) {
        if (serverNonce == null) {
            throw new IllegalStateException("the verdict comes after the challenge");
        }
        int verdict = in.readUnsignedByte();
        if (verdict == Handshake.REFUSED) {
            in.readerIndex(in.readerIndex() - 1);
            throw new HandshakeFailure(readRefusal(in));
        }
        if (verdict != Handshake.ACCEPTED) {
            throw new HandshakeFailure("the server answered the authentication proof with " + verdict
                    + ", neither accepted nor refused");
        }
        byte[] claimed = new byte[Handshake.PROOF];
        in.readBytes(claimed);
        if (secret != null && !secret.verify(ClusterSecret.Role.SERVER, clientNonce, serverNonce, claimed)) {
            throw new HandshakeFailure("the server's proof of the " + (credential == null ? "cluster secret"
                    : "credential's key") + " is wrong (a different secret, or not a Creel server of this cluster)");
        }
    }

    private static boolean refusalReadable(ByteBuf in) {
        return in.readableBytes() >= 3 && in.readableBytes() >= 3 + in.getUnsignedShort(in.readerIndex() + 1);
    }

    private static String readRefusal(ByteBuf in) {
        in.skipBytes(1);
        int length = in.readUnsignedShort();
        return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
    }
}
