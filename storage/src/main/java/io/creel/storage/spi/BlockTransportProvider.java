package io.creel.storage.spi;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;

/**
 * Makes {@link BlockTransport}s; found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.creel.storage.spi.BlockTransportProvider}). A client asks every
 * provider, cheapest first, and uses the first that can reach a server.
 */
public interface BlockTransportProvider {
    /** Provider name, for logs. */
    String name();

    /**
     * Relative cost of moving a byte this way; lower is preferred. A real transport returns the
     * {@link TransportCost#value()} of its kind of path, so all of them are ordered in one table.
     */
    int cost();

    /**
     * Why this provider cannot be used in this process at all (its hardware or library is missing,
     * it is switched off), or {@code null} (the default) when it can. Lets a caller that insists on
     * one transport (a benchmark) fail at once with the reason.
     */
    default String unavailableReason(CreelConf conf) {
        return null;
    }

    /**
     * A transport to {@code server}, or {@code null} if this provider cannot reach it (another host,
     * another tier, access disabled by configuration).
     */
    BlockTransport open(StorageServerInfo server, TransportContext context);
}
