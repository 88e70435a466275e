package io.creel.common.storage;

import io.creel.common.conf.CreelConf;
import io.creel.common.rpc.EventLoops;

/**
 * What a tier gets to start with.
 *
 * @param conf         the configuration
 * @param loops        event loops to serve on (owned by the runtime)
 * @param storageClass the class this server's blocks belong to
 * @param advertiseHost host name clients should use to reach the server
 * @param hostId        identity of this machine, for same-host placement
 */
public record StorageTierContext(CreelConf conf, EventLoops loops, String storageClass, String advertiseHost,
                                 String hostId) {
}
