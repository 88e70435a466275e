package io.creel.namenode.namespace;

import java.util.Set;

/**
 * A write lease: a random number its holder (a client connection) presents with each allocation
 * and commit. {@code unreachable} holds the ids of servers the holder could not reach (its blocks
 * go elsewhere); not logged, and usually empty.
 */
final class Lease {
    private final long value;
    private final Object owner;
    Set<Integer> unreachable = Set.of();

    Lease(long value, Object owner) {
        this.value = value;
        this.owner = owner;
    }

    long value() {
        return value;
    }

    Object owner() {
        return owner;
    }
}
