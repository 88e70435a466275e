package io.creel.namenode.service;

import io.creel.common.protocol.RequestIdentity;
import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who owns a write lease. A client that identifies its requests ({@link RequestIdentity}) owns its
 * leases itself, across its connections: when its last connection closes its leases live on for
 * {@code holdMillis}, and a request of it on a new connection (a retry after a lost connection)
 * keeps them. Only after the hold do they end, as a closed connection's leases end at once for a
 * client that gives no identity (the connection owns those).
 */
final class ClientSessions {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSessions.class);

    /** One identified client: the owner of its leases. */
    private static final class Session {
        final long high;
        final long low;
        final Set<Channel> channels = new HashSet<>();
        /** The pending end of its leases while it has no connection; null otherwise. */
        io.netty.util.concurrent.Future<?> ending;

        Session(long high, long low) {
            this.high = high;
            this.low = low;
        }

        @Override
        public String toString() {
            return String.format("client %016x%016x", high, low);
        }
    }

    private record ClientId(long high, long low) {
    }

    private final long holdMillis;
    private final Consumer<Object> endLeases;
    private final Map<ClientId, Session> sessions = new HashMap<>();
    private final Map<Channel, Set<Session>> byChannel = new HashMap<>();

    /**
     * @param holdMillis how long an identified client's leases outlive its last connection
     * @param endLeases  ends every lease of an owner (a connection or a session)
     */
    ClientSessions(long holdMillis, Consumer<Object> endLeases) {
        this.holdMillis = holdMillis;
        this.endLeases = endLeases;
    }

    /** The owner of leases granted to a request from {@code channel} with {@code identity} (may be null). */
    synchronized Object owner(Channel channel, RequestIdentity identity) {
        if (identity == null) {
            return channel;
        }
        Session s = sessions.computeIfAbsent(new ClientId(identity.clientHigh(), identity.clientLow()),
                id -> new Session(id.high(), id.low()));
        if (channel.isActive() && s.channels.add(channel)) {
            byChannel.computeIfAbsent(channel, c -> new HashSet<>()).add(s);
        }
        if (!s.channels.isEmpty() && s.ending != null) {
            s.ending.cancel(false);
            s.ending = null;
        } else if (s.channels.isEmpty() && s.ending == null) {
            hold(s, channel); // it came on a connection that is already gone
        }
        return s;
    }

    /** {@code channel} closed: its own leases end now, its clients' once they have been away for the hold. */
    void connectionClosed(Channel channel) {
        synchronized (this) {
            Set<Session> clients = byChannel.remove(channel);
            if (clients != null) {
                for (Session s : clients) {
                    s.channels.remove(channel);
                    if (s.channels.isEmpty() && s.ending == null) {
                        hold(s, channel);
                    }
                }
            }
        }
        endLeases.accept(channel);
    }

    /** Ends {@code s}'s leases after the hold, on {@code channel}'s event loop (or now, if that is gone). */
    private void hold(Session s, Channel channel) {
        try {
            s.ending = channel.eventLoop().schedule(() -> end(s), holdMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: event loop gone, its leases end now", s);
            sessions.remove(new ClientId(s.high, s.low));
            endLeases.accept(s);
        }
    }

    private void end(Session s) {
        synchronized (this) {
            if (!s.channels.isEmpty() || s.ending == null) {
                return; // it came back
            }
            s.ending = null;
            sessions.remove(new ClientId(s.high, s.low));
        }
        LOG.debug("{} has had no connection for {} ms: its write leases end", s, holdMillis);
        endLeases.accept(s);
    }

    /** Identified clients known (connected, or within their hold). */
    synchronized int size() {
        return sessions.size();
    }
}
