package io.creel.common.security;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the RPC security layer ({@link RpcSecurity}): cluster-secret authentication on every
 * connection of the frame protocol. Registered as a {@link ConfKeySource}; {@code conf/creel-site.conf}
 * documents each key.
 */
public final class SecurityKeys implements ConfKeySource {
    public static final ConfKey<String> SECRET_FILE = ConfKey.of("creel.security.secret.file", "", v -> v.trim(),
            "File holding the cluster secret (at least 16 bytes, not readable by other users); when set, every "
                    + "connection proves both ends know it before any request is served. Empty: no authentication.");
    public static final ConfKey<Duration> HANDSHAKE_TIMEOUT = ConfKey.of("creel.security.handshake.timeout", "10s",
            ConfValues::parseDuration,
            "A peer that has not completed the authentication handshake within this time is disconnected.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public SecurityKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(SECRET_FILE, HANDSHAKE_TIMEOUT);
    }
}
