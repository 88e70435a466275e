package io.creel.client;

import io.creel.common.net.HostIdentity;

/**
 * How to place a new node.
 *
 * @param storageClass  the class to allocate its blocks from ("dram", "disk"), or "" to inherit
 *                      from the nearest ancestor that has one (else the cluster's default order)
 * @param locationClass a host whose storage servers are preferred for its blocks, or "" for none
 * @param enumerable    for a Table: whether its keys are listed (false makes creates faster);
 *                      ignored for other types
 */
public record CreateOptions(String storageClass, String locationClass, boolean enumerable) {
    private static final CreateOptions DEFAULTS = new CreateOptions("", "", true);

    public CreateOptions {
        storageClass = storageClass == null ? "" : storageClass;
        locationClass = locationClass == null ? "" : locationClass;
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
        return new CreateOptions(c, locationClass, enumerable);
    }

    public CreateOptions withLocationClass(String host) {
        return new CreateOptions(storageClass, host, enumerable);
    }

    public CreateOptions withEnumerable(boolean e) {
        return new CreateOptions(storageClass, locationClass, e);
    }
}
