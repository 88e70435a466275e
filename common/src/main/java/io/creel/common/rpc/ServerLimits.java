package io.creel.common.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import java.time.Duration;

/**
 * What one peer may take of a server, so that a slow, broken or flooding one cannot starve the
 * others: requests handled at once per connection, connections at once per IP address, and how long
 * a connection may sit idle.
 *
 * @param maxInFlight           requests of one connection handled at once ({@code creel.net.max.in.flight})
 * @param maxConnectionsPerPeer connections from one address at once ({@code creel.net.max.connections.per.peer})
 * @param idleTimeout           a connection with no traffic this long is closed; zero: never ({@code creel.net.idle.timeout})
 */
public record ServerLimits(int maxInFlight, int maxConnectionsPerPeer, Duration idleTimeout) {
    /** The limits {@code conf} sets. */
    public static ServerLimits of(CreelConf conf) {
        return new ServerLimits(conf.get(ConfKeys.NET_MAX_IN_FLIGHT), conf.get(ConfKeys.NET_MAX_CONNECTIONS_PER_PEER),
                conf.get(ConfKeys.NET_IDLE_TIMEOUT));
    }

    /** The keys' defaults. */
    public static ServerLimits defaults() {
        return of(CreelConf.defaults());
    }
}
