package io.creel.client;

import io.creel.common.net.HostIdentity;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.Expiry;

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
 * @param expiry        whether the node goes away by itself once this client is gone ({@link Expiry}):
 *                      {@link Expiry#NONE} (the default), bound to this client's session, or with a
 *                      time to live counted from this client's last heartbeat
 * @param ordered       for a Table: whether it keeps its keys in order, so that
 *                      {@link CreelClient#scan} can read them from a start key (false by default:
 *                      an unordered Table's creates and removals are a little cheaper); only a
 *                      Table may be created ordered
 * @param onDemand      for a File: created without a first block; its writer allocates block 0 when
 *                      its bytes first need one (false by default: the create brings block 0 along,
 *                      saving a request for a File written at once)
 */
public record CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                            Expiry expiry, boolean ordered, boolean onDemand) {
    private static final CreateOptions DEFAULTS = new CreateOptions("", "", true, 0, Expiry.NONE, false, false);

    /** Options whose File (if it is one) takes its first block at the create. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                         Expiry expiry, boolean ordered) {
        this(storageClass, locationClass, enumerable, replication, expiry, ordered, false);
    }

    public CreateOptions {
        storageClass = storageClass == null ? "" : storageClass;
        locationClass = locationClass == null ? "" : locationClass;
        if (replication < 0 || replication > BlockLocation.MAX_COPIES) {
            throw new IllegalArgumentException("replication " + replication + ": 0 (inherit) or 1 to "
                    + BlockLocation.MAX_COPIES + " copies");
        }
        expiry = expiry == null ? Expiry.NONE : expiry;
    }

    /** Options of a node that keeps no key order. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                         Expiry expiry) {
        this(storageClass, locationClass, enumerable, replication, expiry, false);
    }

    /** Placement and enumerability; replication inherited, no expiry. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable) {
        this(storageClass, locationClass, enumerable, 0, Expiry.NONE);
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
        return new CreateOptions(c, locationClass, enumerable, replication, expiry, ordered, onDemand);
    }

    public CreateOptions withLocationClass(String host) {
        return new CreateOptions(storageClass, host, enumerable, replication, expiry, ordered, onDemand);
    }

    public CreateOptions withEnumerable(boolean e) {
        return new CreateOptions(storageClass, locationClass, e, replication, expiry, ordered, onDemand);
    }

    /** Each block kept on {@code copies} storage servers of different hosts (0: inherit). */
    public CreateOptions withReplication(int copies) {
        return new CreateOptions(storageClass, locationClass, enumerable, copies, expiry, ordered, onDemand);
    }

    /**
     * The node expires as {@code e} says: {@link Expiry#session()} removes it (and everything below
     * it) {@code creel.namenode.session.timeout} after this client stopped heartbeating — a killed
     * process, a lost machine; {@link Expiry#timeToLive} after the given time instead. While the
     * client lives it renews the node by itself ({@code creel.client.session.heartbeat}); a clean
     * {@link CreelClient#close()} stops the heartbeats too, so remove what should go at once. Typically
     * for a Directory of a job's temporary data; a KeyValue cannot expire (give its Table the expiry).
     * {@link CreelClient#handOver} gives the node to another client or makes it permanent.
     */
    public CreateOptions withExpiry(Expiry e) {
        return new CreateOptions(storageClass, locationClass, enumerable, replication, e, ordered, onDemand);
    }

    /**
     * For a Table: keep its keys in order ({@code true}), so {@link CreelClient#scan} reads them from
     * a start key. Chosen at create and kept for the Table's life.
     */
    public CreateOptions withOrdered(boolean o) {
        return new CreateOptions(storageClass, locationClass, enumerable, replication, expiry, o, onDemand);
    }

    /**
     * For a File: create it without a first block ({@code true}), so a writer that opens many Files at
     * once, most of them staying within the namenode's inline limit, pins no block per File.
     */
    public CreateOptions withBlocksOnDemand(boolean d) {
        return new CreateOptions(storageClass, locationClass, enumerable, replication, expiry, ordered, d);
    }
}
