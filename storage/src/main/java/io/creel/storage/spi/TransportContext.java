package io.creel.storage.spi;

import io.creel.common.conf.CreelConf;
import io.creel.common.rpc.RpcConnections;

/**
 * Shared resources a transport may use.
 *
 * @param conf        configuration
 * @param connections the process's pooled RPC connections (one per storage server address)
 */
public record TransportContext(CreelConf conf, RpcConnections connections) {
}
