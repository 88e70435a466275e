package io.creel.common.storage;

import io.creel.common.conf.CreelConf;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RequestHandler;

/**
 * What a tier gets to start with.
 *
 * @param conf          the configuration
 * @param loops         event loops to serve on (owned by the runtime)
 * @param storageClass  the class this server's blocks belong to
 * @param advertiseHost host name clients should use to reach the server
 * @param hostId        identity of this machine, for same-host placement
 * @param control       serves the storage-server control requests (region grants) that arrive on the
 *                      tier's port; {@code null} when the tier runs without the runtime (tests)
 */
public record StorageTierContext(CreelConf conf, EventLoops loops, String storageClass, String advertiseHost,
                                 String hostId, RequestHandler control) {
    /** A context without a control plane: the tier answers only block reads and writes. */
    public StorageTierContext(CreelConf conf, EventLoops loops, String storageClass, String advertiseHost,
                              String hostId) {
        this(conf, loops, storageClass, advertiseHost, hostId, null);
    }
}
