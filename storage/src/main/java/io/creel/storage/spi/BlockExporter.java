package io.creel.storage.spi;

/**
 * Serves a {@link Volume}'s blocks to clients over one kind of path — TCP requests on the server's
 * port, one-sided RDMA, ... Found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.creel.storage.spi.BlockExporter}); the runtime offers every volume to
 * every exporter, so adding a path is adding a module. Its client side is a
 * {@link BlockTransportProvider}.
 */
public interface BlockExporter {
    /** Name for logs ("tcp", "rdma"). */
    String name();

    /**
     * Starts serving {@code volume}, or returns {@code null} when this path cannot serve it here (the
     * hardware or library is missing, it is disabled by configuration); it then logs why, once.
     */
    Export export(Volume volume, ExportContext context);

    /** A running export. */
    interface Export extends AutoCloseable {
        /** Attributes clients need to use this path, added to the server's description. */
        java.util.Map<String, String> attributes();

        /** Stops serving; the volume stays open. */
        @Override
        void close();
    }
}
