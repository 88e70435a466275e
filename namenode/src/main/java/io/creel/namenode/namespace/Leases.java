package io.creel.namenode.namespace;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Write leases: which owner (a client connection) may write which File or KeyValue version. A lease
 * is a random number the writer presents with each allocation and commit; it ends with the writer's
 * close or its connection. Guarded by the namespace lock.
 */
final class Leases {
    private final Map<Object, Set<Node>> byOwner = new HashMap<>();

    /** Gives {@code n} a fresh lease held by {@code owner}. */
    void grant(Node n, Object owner) {
        long lease;
        do {
            lease = ThreadLocalRandom.current().nextLong();
        } while (lease == 0);
        n.lease = lease;
        n.leaseOwner = owner;
        n.unreachable = java.util.Set.of(); // a new writer may reach what the last one could not
        byOwner.computeIfAbsent(owner, o -> new HashSet<>()).add(n);
    }

    /** Ends {@code n}'s lease, if it has one. */
    void release(Node n) {
        if (n.leaseOwner != null) {
            Set<Node> held = byOwner.get(n.leaseOwner);
            if (held != null) {
                held.remove(n);
                if (held.isEmpty()) {
                    byOwner.remove(n.leaseOwner);
                }
            }
        }
        n.lease = 0;
        n.leaseOwner = null;
    }

    /** Ends every lease {@code owner} holds; returns the nodes that held them (empty if none). */
    Set<Node> endAll(Object owner) {
        Set<Node> held = byOwner.remove(owner);
        if (held == null) {
            return Set.of();
        }
        for (Node n : held) {
            n.lease = 0;
            n.leaseOwner = null;
        }
        return held;
    }
}
