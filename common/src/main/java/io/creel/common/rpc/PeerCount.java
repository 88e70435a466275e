package io.creel.common.rpc;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open connections of one server by peer IP address, bounded per address
 * ({@code creel.net.max.connections.per.peer}), so one host cannot take every connection slot.
 */
final class PeerCount {
    private static final Logger LOG = LoggerFactory.getLogger(PeerCount.class);

    private final String name;
    private final int max;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

    PeerCount(String name, int max) {
        this.name = name;
        this.max = max;
    }

    /**
     * Counts a new connection; false (with a log line) when its address is at the limit already, and
     * the caller closes it. An admitted connection is uncounted when it closes.
     */
    boolean admit(Channel ch) {
        if (!(ch.remoteAddress() instanceof InetSocketAddress remote)) {
            return true;
        }
        InetAddress peer = remote.getAddress();
        if (open.merge(peer, 1, Integer::sum) > max) {
            release(peer);
            LOG.warn("{}: refused connection from {}: it has {} open already (creel.net.max.connections.per.peer)",
                    name, remote, max);
            return false;
        }
        ch.closeFuture().addListener(f -> release(peer));
        return true;
    }

    private void release(InetAddress peer) {
        open.computeIfPresent(peer, (k, v) -> v == 1 ? null : v - 1);
    }

    /** Connections open from {@code peer} now. */
    int openFrom(InetAddress peer) {
        return open.getOrDefault(peer, 0);
    }
}
