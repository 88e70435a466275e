package io.creel.common.security;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the RPC security layer ({@link RpcSecurity}): cluster-secret authentication and TLS on every
 * connection of the frame protocol. Registered as a {@link ConfKeySource}; {@code conf/creel-site.conf}
 * documents each key.
 */
public final class SecurityKeys implements ConfKeySource {
    public static final ConfKey<String> SECRET_FILE = ConfKey.of("creel.security.secret.file", "", v -> v.trim(),
            "File holding the cluster secret (at least 16 bytes, not readable by other users); when set, every "
                    + "connection proves both ends know it before any request is served. Empty: no authentication.");
    public static final ConfKey<String> CREDENTIAL_FILE = ConfKey.of("creel.security.credential.file", "",
            v -> v.trim(), "File holding a named credential (bin/creel admin credential create writes one): when "
                    + "set, this process's connections prove that identity instead of the cluster secret, and the "
                    + "namenode applies the identity's permissions. For users and applications, never for daemons.");
    public static final ConfKey<Duration> HANDSHAKE_TIMEOUT = ConfKey.of("creel.security.handshake.timeout", "10s",
            ConfValues::parseDuration,
            "A peer that has not completed the TLS and authentication handshakes within this time is disconnected.");

    public static final ConfKey<Boolean> TLS_ENABLED = ConfKey.of("creel.security.tls.enabled", "false",
            ConfValues::parseBoolean, "Whether every connection of the frame protocol is carried over TLS (servers "
                    + "refuse plain peers; clients speak only TLS).");
    public static final ConfKey<String> TLS_CERT = ConfKey.of("creel.security.tls.cert", "", v -> v.trim(),
            "PEM certificate chain this process presents: needed by servers, and by clients when "
                    + "creel.security.tls.client.auth is on.");
    public static final ConfKey<String> TLS_KEY = ConfKey.of("creel.security.tls.key", "", v -> v.trim(),
            "PEM private key (PKCS#8, unencrypted) of creel.security.tls.cert.");
    public static final ConfKey<String> TLS_TRUST = ConfKey.of("creel.security.tls.trust", "", v -> v.trim(),
            "PEM certificates of the authorities peers' certificates must chain to; empty means the Java runtime's "
                    + "default trust store.");
    public static final ConfKey<Boolean> TLS_CLIENT_AUTH = ConfKey.of("creel.security.tls.client.auth", "false",
            ConfValues::parseBoolean, "Whether servers require clients to present a certificate that chains to "
                    + "creel.security.tls.trust (clients then present creel.security.tls.cert).");
    public static final ConfKey<Boolean> TLS_VERIFY_HOSTNAME = ConfKey.of("creel.security.tls.verify.hostname",
            "true", ConfValues::parseBoolean,
            "Whether a client checks that a server's certificate names the host (or IP address) it connected to.");
    public static final ConfKey<Boolean> TLS_IDENTITY = ConfKey.of("creel.security.tls.identity", "false",
            ConfValues::parseBoolean, "Whether a client without a secret or credential proves the identity its TLS "
                    + "client certificate names (its subject's CN) to servers with a cluster secret; needs TLS with "
                    + "creel.security.tls.client.auth on both ends.");
    public static final ConfKey<String> TLS_PROVIDER = ConfKey.of("creel.security.tls.provider", "auto",
            v -> ConfValues.oneOf(v, "auto", "jdk", "openssl"),
            "TLS engine: openssl (netty-tcnative on the class path), jdk, or auto (openssl when available).");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public SecurityKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(SECRET_FILE, CREDENTIAL_FILE, HANDSHAKE_TIMEOUT, TLS_ENABLED, TLS_CERT, TLS_KEY, TLS_TRUST, TLS_CLIENT_AUTH,
                TLS_VERIFY_HOSTNAME, TLS_IDENTITY, TLS_PROVIDER);
    }
}
