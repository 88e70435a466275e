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
 * @param sizeHint      for a File or KeyValue: the bytes it is expected to hold, or 0 when unknown. The
 *                      namenode sizes its first block by it (the smallest size class that holds it:
 *                      a 16 KiB value then costs about 16 KiB of storage, not a whole block); a
 *                      node that outgrows it goes on in whole blocks, so a wrong hint costs space,
 *                      never correctness. Unknown means {@code creel.namenode.first.block.size}.
 */
public record CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                            Expiry expiry, boolean ordered, boolean onDemand, long sizeHint) {
    private static final CreateOptions DEFAULTS = new CreateOptions("", "", true, 0, Expiry.NONE, false, false, 0);

    public CreateOptions {
        storageClass = storageClass == null ? "" : storageClass;
        locationClass = locationClass == null ? "" : locationClass;
        if (replication < 0 || replication > BlockLocation.MAX_COPIES) {
            throw new IllegalArgumentException("replication " + replication + ": 0 (inherit) or 1 to "
                    + BlockLocation.MAX_COPIES + " copies");
        }
        expiry = expiry == null ? Expiry.NONE : expiry;
        if (sizeHint < 0) {
            throw new IllegalArgumentException("size hint " + sizeHint + ": 0 (unknown) or the bytes expected");
        }
    }

    /** Options without a size hint. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                         Expiry expiry, boolean ordered, boolean onDemand) {
        this(storageClass, locationClass, enumerable, replication, expiry, ordered, onDemand, 0);
    }

    /** Options whose File (if it is one) takes its first block at the create, without a size hint. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                         Expiry expiry, boolean ordered) {
        this(storageClass, locationClass, enumerable, replication, expiry, ordered, false, 0);
    }

    /** Options of a node that keeps no key order, with a size hint. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                         Expiry expiry, long sizeHint) {
        this(storageClass, locationClass, enumerable, replication, expiry, false, false, sizeHint);
    }

    /** Options of a node that keeps no key order, without a size hint. */
    public CreateOptions(String storageClass, String locationClass, boolean enumerable, int replication,
                         Expiry expiry) {
        this(storageClass, locationClass, enumerable, replication, expiry, false, false, 0);
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
        return new CreateOptions(c, locationClass, enumerable, replication, expiry, ordered, onDemand, sizeHint);
    }

    public CreateOptions withLocationClass(String host) {
        return new CreateOptions(storageClass, host, enumerable, replication, expiry, ordered, onDemand, sizeHint);
    }

    public CreateOptions withEnumerable(boolean e) {
        return new CreateOptions(storageClass, locationClass, e, replication, expiry, ordered, onDemand, sizeHint);
    }

    /** Each block kept on {@code copies} storage servers of different hosts (0: inherit). */
    public CreateOptions withReplication(int copies) {
        return new CreateOptions(storageClass, locationClass, enumerable, copies, expiry, ordered, onDemand, sizeHint);
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
        return new CreateOptions(storageClass, locationClass, enumerable, replication, e, ordered, onDemand, sizeHint);
    }

    /**
     * For a Table: keep its keys in order ({@code true}), so {@link CreelClient#scan} reads them from
     * a start key. Chosen at create and kept for the Table's life.
     */
    public CreateOptions withOrdered(boolean o) {
        return new CreateOptions(storageClass, locationClass, enumerable, replication, expiry, o, onDemand, sizeHint);
    }

    /**
     * For a File: create it without a first block ({@code true}), so a writer that opens many Files at
     * once, most of them staying within the namenode's inline limit, pins no block per File.
     */
    public CreateOptions withBlocksOnDemand(boolean d) {
        return new CreateOptions(storageClass, locationClass, enumerable, replication, expiry, ordered, d, sizeHint);
    }

    /** A File or KeyValue expected to hold {@code bytes} (0: unknown); see {@link #sizeHint}. */
    public CreateOptions withSizeHint(long bytes) {
        return new CreateOptions(storageClass, locationClass, enumerable, replication, expiry, ordered, onDemand, bytes);
    }
}
