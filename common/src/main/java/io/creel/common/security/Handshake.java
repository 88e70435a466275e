package io.creel.common.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * The bytes of the authentication handshake that opens a connection when a cluster secret is set,
 * before any frame:
 * <pre>
 *   client -> server  HELLO      magic "CRAU", version 1, client nonce (32 bytes)
 *   server -> client  CHALLENGE  magic "CRAU", version 1, server nonce (32 bytes)
 *   client -> server  PROOF      HMAC(secret, "client" label, client nonce, server nonce) (32 bytes)
 *   server -> client  ACCEPTED   0, HMAC(secret, "server" label, client nonce, server nonce) (32 bytes)
 *                  or REFUSED    1, message length (u16), message (UTF-8)
 * </pre>
 * A client proving a named {@link Credential} instead of the cluster secret sends HELLO version 2:
 * the same, followed by its identity ({@link #IDENTITY} bytes: name length (u8), the name in UTF-8
 * padded with zeros to 64 bytes, the credential's 16-byte id); both proofs are then made with the
 * credential's key, which the server derives from the cluster secret. A client whose identity is
 * its TLS client certificate's subject sends HELLO version 3 (no identity block): it has no key, so
 * its PROOF is zeros and the server's proof in ACCEPTED is zeros too; the server accepts it only
 * over a TLS connection whose peer presented a verified certificate, and TLS has authenticated
 * the server already. The server's CHALLENGE is version 1 in every case.
 *
 * <p>The server checks the client's proof before it proves itself, so a peer without the secret learns
 * nothing it could replay; both nonces are fresh, so no recorded proof is valid twice. The magic,
 * read as a frame length, is larger than any frame: a server without authentication closes such a
 * connection at once instead of waiting for a gigabyte.
 */
final class Handshake {
    static final int MAGIC = 0x43524155; // "CRAU"
    static final int VERSION = 1;
    /** A HELLO that names a credential's identity. */
    static final int VERSION_IDENTIFIED = 2;
    /** A HELLO whose identity is the TLS client certificate's subject. */
    static final int VERSION_CERTIFICATE = 3;
    /** A version-2 HELLO's identity: name length, name (padded), credential id. */
    static final int IDENTITY = 1 + Identity.MAX_NAME_BYTES + Credential.ID_BYTES;
    static final int NONCE = 32;
    static final int PROOF = 32;
    /** HELLO and CHALLENGE: magic, version, nonce. */
    static final int OPENING = 4 + 1 + NONCE;
    static final int ACCEPTED = 0;
    static final int REFUSED = 1;
    /** Longest refusal message sent. */
    static final int MAX_MESSAGE = 1024;

    private static final SecureRandom RANDOM = new SecureRandom();

    private Handshake() {
    }

    static byte[] nonce() {
        byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    /** HELLO or CHALLENGE. */
    static ByteBuf opening(ByteBufAllocator alloc, byte[] nonce) {
        return alloc.buffer(OPENING).writeInt(MAGIC).writeByte(VERSION).writeBytes(nonce);
    }

    /**
     * Reads a HELLO or CHALLENGE's nonce from {@code in} (which holds at least {@link #OPENING} bytes).
     *
     * @throws HandshakeFailure naming what was wrong
     */
    static byte[] readOpening(ByteBuf in, String what) {
        return readOpening(in, what, VERSION);
    }

    /** {@link #readOpening(ByteBuf, String)} accepting versions 1 to {@code newest}. */
    static byte[] readOpening(ByteBuf in, String what, int newest) {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new HandshakeFailure(what + " does not start with the handshake's magic (got 0x"
                    + Integer.toHexString(magic) + ")");
        }
        int version = in.readUnsignedByte();
        if (version < VERSION || version > newest) {
            throw new HandshakeFailure(what + " is of handshake version " + version + "; this side speaks "
                    + (newest == VERSION ? String.valueOf(VERSION) : VERSION + " to " + newest));
        }
        byte[] nonce = new byte[NONCE];
        in.readBytes(nonce);
        return nonce;
    }

    /** A version-2 HELLO: an opening naming {@code credential}'s identity. */
    static ByteBuf identifiedHello(ByteBufAllocator alloc, byte[] nonce, Credential credential) {
        byte[] name = credential.name().getBytes(StandardCharsets.UTF_8);
        ByteBuf b = alloc.buffer(OPENING + IDENTITY).writeInt(MAGIC).writeByte(VERSION_IDENTIFIED).writeBytes(nonce);
        b.writeByte(name.length).writeBytes(name).writeZero(Identity.MAX_NAME_BYTES - name.length);
        return b.writeBytes(credential.id());
    }

    /** The bytes a HELLO takes, given at least its first 5 at {@code in}'s reader index. */
    static int helloLength(ByteBuf in) {
        return in.getUnsignedByte(in.readerIndex() + 4) == VERSION_IDENTIFIED ? OPENING + IDENTITY : OPENING;
    }

    /** A version-3 HELLO: the identity is the client's TLS certificate's. */
    static ByteBuf certificateHello(ByteBufAllocator alloc, byte[] nonce) {
        return alloc.buffer(OPENING).writeInt(MAGIC).writeByte(VERSION_CERTIFICATE).writeBytes(nonce);
    }

    static ByteBuf accepted(ByteBufAllocator alloc, byte[] serverProof) {
        return alloc.buffer(1 + PROOF).writeByte(ACCEPTED).writeBytes(serverProof);
    }

    static ByteBuf refused(ByteBufAllocator alloc, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_MESSAGE);
        while (n < text.length && n > 0 && (text[n] & 0xC0) == 0x80) {
            n--; // a cut inside a character's bytes would reach the peer as a broken character
        }
        return alloc.buffer(3 + n).writeByte(REFUSED).writeShort(n).writeBytes(text, 0, n);
    }
}
