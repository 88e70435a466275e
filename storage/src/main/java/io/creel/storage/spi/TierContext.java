package io.creel.storage.spi;

import io.creel.common.conf.CreelConf;

/**
 * What a tier gets to open its volume with.
 *
 * @param conf          the configuration
 * @param storageClass  the class this server's blocks belong to
 * @param advertiseHost host name clients use to reach the server
 * @param hostId        identity of this machine, for same-host placement
 * @param listener      binds the server's port
 */
public record TierContext(CreelConf conf, String storageClass, String advertiseHost, String hostId,
                          PortBinder listener) {
    /** Binds the storage server's port. */
    @FunctionalInterface
    public interface PortBinder {
        /**
         * Starts listening on {@code port} (0: any free port) and returns the port bound; fails with
         * {@link io.creel.common.error.ErrorCode#UNAVAILABLE} when the port is taken.
         */
        int listen(int port);
    }

    /** Binds the server's port; see {@link PortBinder#listen}. */
    public int listen(int port) {
        return listener.listen(port);
    }
}
