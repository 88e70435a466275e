package io.creel.namenode.namespace;

import java.util.HashMap;
import java.util.Map;

/**
 * Where a node asks its blocks to go: its own storage class and location class ("" when it
 * inherits), and how many copies each block has (0 when it inherits). Few distinct placements
 * exist in a namespace, so nodes share interned instances.
 */
record Placement(String storageClass, String locationClass, int replication) {
    /** Inherit all. */
    static final Placement INHERIT = new Placement("", "", 0);

    /** Shares one instance per distinct placement; guarded by the namespace lock. */
    static final class Interner {
        private final Map<Placement, Placement> known = new HashMap<>();

        Placement of(String storageClass, String locationClass, int replication) {
            if (storageClass.isEmpty() && locationClass.isEmpty() && replication == 0) {
                return INHERIT;
            }
            return known.computeIfAbsent(new Placement(storageClass, locationClass, replication), p -> p);
        }
    }
}
