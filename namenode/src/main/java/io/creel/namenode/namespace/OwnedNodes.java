package io.creel.namenode.namespace;

import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.NodeExpiry;
import io.creel.common.protocol.RequestIdentity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Expiring nodes ({@link Expiry}): which client session owns each, and when each owner was last
 * heard. A node whose owner has been silent longer than its grace — the session timeout, or its own
 * time to live — is due, and {@link Namespace#expireDue} removes it with everything below it.
 *
 * <p>Only expiring nodes are kept here, by id, so the millions of other nodes pay nothing. Which
 * nodes are owned is guarded by the namespace lock (it changes with creates, hand-overs and
 * retirements); when owners were last heard is not: every identified request renews its client
 * ({@link #renew}) on the event loop that received it, so it must not wait for the namespace lock.
 * Heartbeats are not persisted: after a restart every owner counts as heard at the restart
 * ({@link #heardAll}), so a live client's nodes are never removed by one.
 */
final class OwnedNodes {
    /** A client session that owns expiring nodes. */
    private static final class Owner {
        final long high;
        final long low;
        /** When this namenode last heard the client: written by any event loop, read by the sweep. */
        volatile long lastHeard;
        /** Nodes it owns here; guarded by the namespace lock. */
        int nodes;

        Owner(long high, long low, long now) {
            this.high = high;
            this.low = low;
            this.lastHeard = now;
        }

        String text() {
            return new RequestIdentity(high, low, 0).clientText();
        }
    }

    private record ClientId(long high, long low) {
    }

    /** An owned node: its owner and grace (-1 for the session timeout). */
    private record Owned(Owner owner, long graceMillis) {
    }

    /** What {@link #due} found: a node to remove and why. */
    record Due(long nodeId, String owner, long silentMillis, long graceMillis) {
    }

    private final ConcurrentHashMap<ClientId, Owner> owners = new ConcurrentHashMap<>();
    private final Map<Long, Owned> byNode = new HashMap<>();
    private final LongSupplier clock;
    /** The grace of a session-bound node ({@code creel.namenode.session.timeout}). */
    private volatile long sessionTimeoutMillis;

    OwnedNodes(LongSupplier clock, long sessionTimeoutMillis) {
        this.clock = clock;
        this.sessionTimeoutMillis = sessionTimeoutMillis;
    }

    void setSessionTimeout(long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException("the session timeout must be positive: " + millis + " ms");
        }
        sessionTimeoutMillis = millis;
    }

    long sessionTimeoutMillis() {
        return sessionTimeoutMillis;
    }

    /** Whether no node expires (the common case: every lookup then skips the rest). */
    boolean isEmpty() {
        return byNode.isEmpty();
    }

    /**
     * Client {@code high}/{@code low} was heard now; lock-free. A client that owns nothing here is
     * not remembered (it would be forgotten at once).
     */
    void renew(long high, long low) {
        if (owners.isEmpty()) {
            return; // the usual case: nothing expires, and every identified request passes here
        }
        Owner o = owners.get(new ClientId(high, low));
        if (o != null) {
            o.lastHeard = clock.getAsLong();
        }
    }

    /** Expiring nodes here, of every owner. */
    int size() {
        return byNode.size();
    }

    /** Expiring nodes client {@code high}/{@code low} owns here. */
    long ownedBy(long high, long low) {
        Owner o = owners.get(new ClientId(high, low));
        return o == null ? 0 : o.nodes;
    }

    /**
     * Node {@code nodeId} is owned by that client from now on, with {@code expiry} (which expires):
     * a new owner counts as heard now. Replaces any earlier owner.
     */
    void own(long nodeId, long high, long low, Expiry expiry) {
        drop(nodeId);
        Owner o = owners.computeIfAbsent(new ClientId(high, low), id -> new Owner(high, low, clock.getAsLong()));
        o.nodes++;
        byNode.put(nodeId, new Owned(o, expiry.graceMillis()));
    }

    /** Node {@code nodeId} no longer expires (made permanent, or gone); a no-op if it did not. */
    void drop(long nodeId) {
        Owned owned = byNode.remove(nodeId);
        if (owned != null && --owned.owner.nodes == 0) {
            owners.remove(new ClientId(owned.owner.high, owned.owner.low), owned.owner);
        }
    }

    /** Whether {@code nodeId} expires. */
    boolean expires(long nodeId) {
        return byNode.containsKey(nodeId);
    }

    /** Whether client {@code who} owns {@code nodeId}. */
    boolean isOwner(long nodeId, RequestIdentity who) {
        Owned owned = byNode.get(nodeId);
        return owned != null && who != null && owned.owner.high == who.clientHigh() && owned.owner.low == who.clientLow();
    }

    /** How {@code nodeId} expires, for its NodeInfo, or {@code null} if it does not. */
    NodeExpiry describe(long nodeId) {
        Owned owned = byNode.get(nodeId);
        if (owned == null) {
            return null;
        }
        long silent = Math.max(0, clock.getAsLong() - owned.owner.lastHeard);
        return new NodeExpiry(owned.owner.text(), owned.graceMillis == -1, grace(owned), silent);
    }

    /** How {@code nodeId} expires, as logged: its owner and grace, or {@code null}. */
    long[] logged(long nodeId) {
        Owned owned = byNode.get(nodeId);
        return owned == null ? null : new long[] {owned.owner.high, owned.owner.low, owned.graceMillis};
    }

    /** The owned nodes whose owner has been silent longer than their grace, now. */
    List<Due> due() {
        if (byNode.isEmpty()) {
            return List.of();
        }
        long now = clock.getAsLong();
        List<Due> due = new ArrayList<>();
        byNode.forEach((id, owned) -> {
            long silent = now - owned.owner.lastHeard;
            if (silent > grace(owned)) {
                due.add(new Due(id, owned.owner.text(), silent, grace(owned)));
            }
        });
        return due;
    }

    /** After a restart: every owner counts as heard now (heartbeats are not persisted). */
    void heardAll() {
        long now = clock.getAsLong();
        owners.values().forEach(o -> o.lastHeard = now);
    }

    private long grace(Owned owned) {
        return owned.graceMillis == -1 ? sessionTimeoutMillis : owned.graceMillis;
    }
}
