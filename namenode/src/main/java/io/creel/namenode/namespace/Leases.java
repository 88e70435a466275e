package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Write leases: which owner (a client connection) may write which File or KeyValue version. A lease
 * is a random number the writer presents with each allocation and commit; it ends with the writer's
 * close or its connection. The lease itself hangs off its node ({@link DataNode#lease}); this class
 * knows each owner's nodes. Guarded by the namespace lock.
 */
final class Leases {
    private final Map<Object, Set<DataNode>> byOwner = new HashMap<>();
    /**
     * Owners whose leases were ended by {@link #endAll} (closed connections). A request of theirs can
     * still run after that — one waiting for a region grant, say — and a lease it took then would
     * never end. Weak, so a closed connection is forgotten once nothing else refers to it.
     */
    private final Set<Object> ended = Collections.newSetFromMap(new WeakHashMap<>());

    /** Refuses, with nothing changed, a request for a lease by an owner whose leases have all ended. */
    void checkOwner(Object owner, Object path) {
        if (ended.contains(owner)) {
            throw new CreelException(ErrorCode.UNAVAILABLE, path + ": the connection that asked for the write lease "
                    + "closed before the request ran; nothing was changed");
        }
    }

    /** Gives {@code n} a fresh lease held by {@code owner}. */
    void grant(DataNode n, Object owner) {
        long value;
        do {
            value = ThreadLocalRandom.current().nextLong();
        } while (value == 0);
        // A new writer starts with no unreachable servers: it may reach what the last one could not.
        n.lease = new Lease(value, owner);
        byOwner.computeIfAbsent(owner, o -> new HashSet<>()).add(n);
    }

    /** Ends {@code n}'s lease, if it has one. */
    void release(DataNode n) {
        if (n.lease == null) {
            return;
        }
        Set<DataNode> held = byOwner.get(n.lease.owner());
        if (held != null) {
            held.remove(n);
            if (held.isEmpty()) {
                byOwner.remove(n.lease.owner());
            }
        }
        n.lease = null;
    }

    /** Ends every lease {@code owner} holds; returns the nodes that held them (empty if none). */
    Set<DataNode> endAll(Object owner) {
        ended.add(owner);
        Set<DataNode> held = byOwner.remove(owner);
        if (held == null) {
            return Set.of();
        }
        for (DataNode n : held) {
            n.lease = null;
        }
        return held;
    }
}
