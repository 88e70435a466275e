package io.creel.ops;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.util.List;

/**
 * The keys of a daemon's HTTP side (health probes, metrics, the status page). Registered as a
 * {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class OpsKeys implements ConfKeySource {
    /** Off by default: a daemon opens no port an operator did not ask for. */
    public static final ConfKey<Integer> HTTP_PORT = ConfKey.of("creel.http.port", "0",
            v -> ConfValues.parseInt(v, 0, 65535),
            "Port of a daemon's HTTP server (/health, /metrics, and the status page at / on a namenode); 0 means no "
                    + "HTTP server. bin/creel local picks free ports when it is 0.");
    /**
     * Loopback by default: the status page and metrics describe the whole cluster, so another host
     * sees them only when the operator opens them (and, with a cluster secret, only with the token).
     */
    public static final ConfKey<String> HTTP_HOST = ConfKey.of("creel.http.host", "localhost", v -> v.trim(),
            "Interface the HTTP server listens on: localhost by default, so only this machine reaches it; 0.0.0.0 for "
                    + "every interface; empty means the daemon's own bind host (creel.namenode.bind.host or "
                    + "creel.storage.bind.host). With creel.security.secret.file set, everything but /health needs "
                    + "'Authorization: Bearer TOKEN' (bin/creel admin http-token prints it).");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public OpsKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(HTTP_PORT, HTTP_HOST);
    }
}
