package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The shared cluster secret, read from a file, and the proofs of knowing it: HMAC-SHA256 over a role
 * label and both ends' nonces. The secret itself never leaves this class.
 */
public final class ClusterSecret {
    /** Shortest secret accepted: shorter ones are guessable offline from one recorded handshake. */
    public static final int MIN_BYTES = 16;
    private static final String MAC = "HmacSHA256";
    private static final byte[] CREDENTIAL_LABEL = "creel-credential-v1".getBytes(
            java.nio.charset.StandardCharsets.UTF_8);
    private static final byte[] HTTP_LABEL = "creel-http-v1 token".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private final Path file;
    private final SecretKeySpec key;

    private ClusterSecret(Path file, byte[] secret) {
        this.file = file;
        this.key = new SecretKeySpec(secret, MAC);
    }

    /**
     * Reads the secret from {@code file} (trailing white space dropped, so {@code echo > file} works).
     * Fails CONFIGURATION when the file is missing, too short, or readable by users other than its
     * owner and group: a secret any local user can read protects nothing.
     */
    public static ClusterSecret read(Path file) {
        byte[] bytes;
        try {
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
                if (perms.contains(PosixFilePermission.OTHERS_READ)) {
                    throw new CreelException(ErrorCode.CONFIGURATION, "cluster secret file " + file
                            + " is readable by every user; make it private (chmod 600 " + file + ")");
                }
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot read the cluster secret file " + file + " ("
                    + SecurityKeys.SECRET_FILE.name() + "): " + e, e);
        }
        int end = bytes.length;
        while (end > 0 && Character.isWhitespace(bytes[end - 1])) {
            end--;
        }
        if (end < MIN_BYTES) {
            Arrays.fill(bytes, (byte) 0);
            throw new CreelException(ErrorCode.CONFIGURATION, "cluster secret in " + file + " has " + end
                    + " bytes; at least " + MIN_BYTES + " are needed (openssl rand -base64 32 > " + file + ")");
        }
        byte[] secret = Arrays.copyOf(bytes, end);
        Arrays.fill(bytes, (byte) 0);
        return new ClusterSecret(file, secret);
    }

    /** A key made elsewhere (a named credential's), proving as a cluster secret proves. */
    static ClusterSecret ofKey(Path file, byte[] key) {
        return new ClusterSecret(file, key);
    }

    /**
     * The key of named credential {@code name} with id {@code id}: HMAC-SHA256 under this secret of
     * a label, the name and the id. Derived rather than stored, so every daemon that holds the
     * cluster secret can check a credential's proof without asking anyone, and no file or log of the
     * cluster holds users' keys; a new id (a credential issued again) gives a new key.
     */
    byte[] deriveKey(String name, byte[] id) {
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(key);
            mac.update(CREDENTIAL_LABEL);
            byte[] n = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            mac.update((byte) n.length);
            mac.update(n);
            mac.update(id);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(MAC + " is part of every Java runtime: " + e, e);
        }
    }

    /** The key's bytes, for {@link Credential#write} (a credential's secret is its key). */
    byte[] rawKey() {
        return key.getEncoded();
    }

    /** The file the secret came from, for messages. */
    public Path file() {
        return file;
    }

    /**
     * The bearer token of the daemons' HTTP side ({@code /metrics}, the status page): HMAC-SHA256 of
     * a fixed label under the secret, in hex. Derived, not the secret itself, because HTTP travels
     * in clear text: a token read off the wire opens the metrics, never an RPC connection.
     */
    public String httpToken() {
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(key);
            return java.util.HexFormat.of().formatHex(mac.doFinal(HTTP_LABEL));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(MAC + " is part of every Java runtime: " + e, e);
        }
    }

    /**
     * The proof that the side playing {@code role} knows the secret, bound to this handshake's nonces.
     * The role is part of the input, so a proof can never be reflected back as the other side's.
     */
    byte[] proof(Role role, byte[] clientNonce, byte[] serverNonce) {
        try {
            Mac mac = Mac.getInstance(MAC);
            mac.init(key);
            mac.update(role.label);
            mac.update(clientNonce);
            mac.update(serverNonce);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(MAC + " is part of every Java runtime: " + e, e);
        }
    }

    /** Whether {@code claimed} is the proof of {@code role} for these nonces (constant-time comparison). */
    boolean verify(Role role, byte[] clientNonce, byte[] serverNonce, byte[] claimed) {
        return MessageDigest.isEqual(proof(role, clientNonce, serverNonce), claimed);
    }

    /** Which end of a connection a proof is made by. */
    enum Role {
        CLIENT("creel-auth-v1 client"),
        SERVER("creel-auth-v1 server");

        private final byte[] label;

        Role(String label) {
            this.label = label.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
    }
}
