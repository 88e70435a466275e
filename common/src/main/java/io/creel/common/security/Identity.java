package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.charset.StandardCharsets;

/**
 * Who is at the other end of an authenticated connection: the name a named credential proved, or
 * the cluster itself (a peer that proved the cluster secret: a daemon or an administrator, the
 * superuser). A server learns it in the authentication {@link Handshake}; handlers read it as
 * {@link io.creel.common.rpc.RpcPeer#identity()}.
 *
 * @param name       the identity's name ({@link #SUPERUSER} for the cluster)
 * @param superuser  whether it proved the cluster secret (may do anything)
 * @param credential the id of the credential it proved (32 hex digits; "" for the cluster,
 *                   {@link #CERTIFICATE} for a TLS certificate's subject): the namenode refuses its
 *                   requests once that issue is no longer current
 */
public record Identity(String name, boolean superuser, String credential) {
    /** The name of the cluster's own identity: what proves the cluster secret, and owns the root. */
    public static final String SUPERUSER = "creel";
    /** The cluster's daemons and administrators. */
    public static final Identity CLUSTER = new Identity(SUPERUSER, true, "");
    /** {@link #credential()} of an identity its TLS client certificate proved (no credential to revoke). */
    public static final String CERTIFICATE = "certificate";
    /** Longest name, in UTF-8 bytes (a HELLO carries it in a fixed field). */
    public static final int MAX_NAME_BYTES = 64;

    /** A named identity (not the superuser) proven by credential {@code credential}. */
    public static Identity named(String name, String credential) {
        return new Identity(checkName(name), false, credential);
    }

    /**
     * {@code name} if it can name an identity or a group: 1 to {@link #MAX_NAME_BYTES} bytes of
     * letters, digits, {@code . _ - @}, not starting with {@code -}.
     *
     * @throws CreelException INVALID_ARGUMENT saying what is wrong
     */
    public static String checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "an identity needs a name");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "identity name " + name + " is longer than "
                    + MAX_NAME_BYTES + " bytes");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == '@');
            if (!ok || (i == 0 && c == '-')) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "identity name " + name + ": only letters, "
                        + "digits and . _ - @ (not starting with -)");
            }
        }
        return name;
    }

    @Override
    public String toString() {
        return superuser ? name + " (superuser)" : name;
    }
}
