package io.creel.client;

import io.creel.common.net.HostIdentity;
import io.creel.common.protocol.BlockLocation;

/**
 * How to place a new node.
 *
 * @param storageClass  the class to allocate its blocks from ("dram", "disk"), or "" to inherit
 *                      from the nearest ancestor that has one (else the cluster's default order)
 * @param locationClass a host whose storage servers are preferred for its blocks, or "" for none
 * @param enumerable    for a Table: whether its keys are listed (false makes creates faster);
 *                      ignored for other types
 * @param replication   copies of each block, on storage servers of different hosts (1 to 8), or 0
 *                      to inherit from the nearest ancestor that has one (else the storage class's
 *                      factor, {@code creel.namenode.replication})
 */
public record CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication) {
    private static final CreateOptions DEFAULTS = new CreateOptions("", "", true, 0);

    public CreateOptions {
        storageClass = storageClass == null ? "" : storageClass;
        locationClass = locationClass == null ? "" : locationClass;
        if (replication < 0 || replication > BlockLocation.MAX_COPIES) {
            throw new IllegalArgumentException("replication " + replication + ": 0 (inherit) or 1 to "
                    + BlockLocation.MAX_COPIES + " copies");
        }
    }

    /** Placement and enumerability, replication inherited. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable) {
        this(storageClass, locationClass, enumerable, 0);
    }

    /** Inherited storage class, no location preference, enumerable. */
    public static CreateOptions defaults() {
        return DEFAULTS;
    }

    /** Prefer the storage servers of this machine (by its host name). */
    public static CreateOptions sameHost() {
        return DEFAULTS.withLocationClass(HostIdentity.hostName());
    }

    public CreateOptions withStorageClass(String c) {
        return new CreateOptions(c, locationClass, enumerable, replication);
    }

    public CreateOptions withLocationClass(String host) {
        return new CreateOptions(storageClass, host, enumerable, replication);
    }

    public CreateOptions withEnumerable(boolean e) {
        return new CreateOptions(storageClass, locationClass, e, replication);
    }

    /** Each block kept on {@code copies} storage servers of different hosts (0: inherit). */
    public CreateOptions withReplication(int copies) {
        return new CreateOptions(storageClass, locationClass, enumerable, copies);
    }
}
