package io.creel.storage.transport;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import java.util.List;

/**
 * The keys of the transport rule ({@link TransportSelector}) every client applies. Registered as a
 * {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class TransportKeys implements ConfKeySource {
    public static final ConfKey<List<String>> TRANSPORTS = ConfKey.of("creel.client.transports", "",
            ConfValues::parseList,
            "Transports a client may use, by name (mapped, local-file, rdma, tcp; comma-separated); the cheapest that "
                    + "reaches a server is used, the next on failure. Empty means every transport on the class path.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public TransportKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(TRANSPORTS);
    }
}
