package io.creel.storage.runtime;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegionGrantReply;
import io.creel.common.protocol.RegionGrantRequest;
import io.creel.common.protocol.RegionReleaseRequest;
import io.creel.common.protocol.RegionSyncRequest;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.storage.format.BlockTags;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which namenode may allocate which blocks of this storage server. The blocks are split
 * into regions; a namenode asks for regions when it runs low and gives them back when they have been
 * empty for a while, so no namenode's share of the cluster is fixed in advance: one busy partition
 * can fill every server while the others hold nothing.
 *
 * <p>Owners are namenode instances. A restarted namenode is a new instance: when it registers again
 * the regions of its previous instance are handed over to it provisionally ({@link #handOver}) — it
 * claims those holding its data with a sync, and the rest become free after a while. Meanwhile no
 * other namenode is granted them: they may hold the restarted namenode's data, which it has not
 * claimed yet. Likewise a server that restarts on a volume holding data (persistent) knows no owner
 * at all at first: it grants nothing until its namenodes have claimed their regions with a sync
 * ({@link #holdGrantsForClaims}).
 * Each grant carries the highest tag in the region, so a new owner's tags are always newer than
 * anything a previous owner wrote there.
 */
public final class RegionArbiter implements RequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RegionArbiter.class);

    private final String name;
    private final long blockCount;
    private final int regionBlocks;
    private final long[] owner;
    /** Per region: until when (nanoTime) its owner holds it only provisionally; 0 when held for good. */
    private final long[] provisionalUntil;
    private final java.util.function.LongSupplier nanos;
    /** While grants are held for claims: when that ends (nanoTime), and how many instances must sync first. */
    private long holdUntil;
    private int claimsAwaited;
    private final java.util.Set<Long> claimed = new java.util.HashSet<>();
    private final BlockTags tags;
    private int nextFree;

    /**
     * @param name         the server, for logs and errors
     * @param blockCount   blocks the server exports
     * @param regionBlocks blocks per region (at least 1)
     * @param tags         the server's tag table, for each region's highest tag
     */
    public RegionArbiter(String name, long blockCount, int regionBlocks, BlockTags tags) {
        this(name, blockCount, regionBlocks, tags, System::nanoTime);
    }

    /** As above, with {@code nanos} for {@link System#nanoTime} (tests). */
    public RegionArbiter(String name, long blockCount, int regionBlocks, BlockTags tags,
                         java.util.function.LongSupplier nanos) {
        if (regionBlocks < 1) {
            throw new IllegalArgumentException("a region has at least one block");
        }
        this.name = name;
        this.blockCount = blockCount;
        this.regionBlocks = regionBlocks;
        this.owner = new long[Math.toIntExact((blockCount + regionBlocks - 1) / regionBlocks)];
        this.provisionalUntil = new long[owner.length];
        this.tags = tags;
        this.nanos = nanos;
    }

    public int regionBlocks() {
        return regionBlocks;
    }

    public int regionCount() {
        return owner.length;
    }

    /** Regions no namenode holds. */
    public synchronized int freeRegions() {
        expireProvisional();
        return freeRegionsLocked();
    }

    /**
     * Grants up to {@code count} free regions to {@code instance} — first those handed over to it
     * after its restart that it has not claimed yet (they are its own; its allocator keeps the
     * blocks its log says hold data out of the free list).
     */
    public synchronized RegionGrantReply grant(long instance, int count) {
        checkInstance(instance);
        expireProvisional();
        if (holdingForClaims()) {
            // Not full: the asker tries again a little later, when the owners have claimed their regions.
            return new RegionGrantReply(regionBlocks, List.of(), false);
        }
        List<RegionGrantReply.Grant> out = new ArrayList<>();
        for (int scanned = 0; scanned < owner.length && out.size() < count; scanned++) {
            int r = (nextFree + scanned) % owner.length;
            if (owner[r] == 0 || owner[r] == instance && provisionalUntil[r] != 0) {
                owner[r] = instance;
                provisionalUntil[r] = 0;
                out.add(new RegionGrantReply.Grant(r, maxTag(r)));
            }
        }
        if (!out.isEmpty()) {
            nextFree = (out.get(out.size() - 1).region() + 1) % owner.length;
            LOG.debug("{}: granted {} region(s) to namenode instance {}", name, out.size(), instance);
        }
        return new RegionGrantReply(regionBlocks, List.copyOf(out), freeRegionsLocked() == 0);
    }

    /** Takes a region back from its owner; a release by anyone else is ignored (it lost the region already). */
    public synchronized void release(long instance, int region) {
        checkRegion(region);
        if (owner[region] == instance) {
            owner[region] = 0;
            provisionalUntil[region] = 0;
        }
    }

    /**
     * Confirms {@code instance} in the regions it says it holds data in, where no other instance
     * holds them; returns the regions confirmed.
     */
    public synchronized RegionGrantReply sync(long instance, List<Integer> regions) {
        checkInstance(instance);
        expireProvisional();
        if (claimsAwaited > 0) {
            claimed.add(instance);
        }
        List<RegionGrantReply.Grant> out = new ArrayList<>();
        for (int r : regions) {
            checkRegion(r);
            if (owner[r] == 0 || owner[r] == instance) {
                owner[r] = instance;
                provisionalUntil[r] = 0;
                out.add(new RegionGrantReply.Grant(r, maxTag(r)));
            } else {
                LOG.warn("{}: namenode instance {} claims region {}, held by instance {}; refused", name, instance, r,
                        owner[r]);
            }
        }
        return new RegionGrantReply(regionBlocks, List.copyOf(out), freeRegionsLocked() == 0);
    }

    /** A namenode instance is gone (its address now answers with another instance): its regions are free. */
    public synchronized int forget(long instance) {
        int n = 0;
        for (int r = 0; r < owner.length; r++) {
            if (owner[r] == instance) {
                owner[r] = 0;
                n++;
            }
        }
        if (n > 0) {
            LOG.info("{}: took back {} region(s) of namenode instance {}", name, n, instance);
        }
        return n;
    }

    /**
     * A namenode registered again as instance {@code next} (it restarted): the regions of its
     * previous instance are {@code next}'s for {@code graceMillis}, to claim with a sync those
     * holding the data it restored from its log; the rest are free after that. Returns how many.
     */
    public synchronized int handOver(long previous, long next, long graceMillis) {
        checkInstance(next);
        long until = nanos.getAsLong() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(graceMillis);
        int n = 0;
        for (int r = 0; r < owner.length; r++) {
            if (owner[r] == previous) {
                owner[r] = next;
                provisionalUntil[r] = until == 0 ? 1 : until;
                n++;
            }
        }
        if (n > 0) {
            LOG.info("{}: {} region(s) of namenode instance {} wait {} ms for its restart, instance {}, to claim them",
                    name, n, previous, graceMillis, next);
        }
        return n;
    }

    /** Whether any block of this server holds a tag, i.e. some namenode allocated it (its volume was reopened). */
    public boolean holdsData() {
        for (long b = 0; b < blockCount; b++) {
            if (tags.get(b) != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The server started on a volume that holds data: it grants no region until {@code namenodes}
     * namenode instances have synced (each claims the regions it holds data in when the server
     * registers) or {@code maxMillis} have passed, so no region holding one namenode's blocks goes to
     * another that asks first.
     */
    public synchronized void holdGrantsForClaims(int namenodes, long maxMillis) {
        claimsAwaited = namenodes;
        claimed.clear();
        holdUntil = nanos.getAsLong() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(maxMillis);
        LOG.info("{}: its volume holds data; no region is granted until {} namenode(s) have claimed theirs, at most "
                + "{} ms", name, namenodes, maxMillis);
    }

    private boolean holdingForClaims() {
        if (claimsAwaited == 0) {
            return false;
        }
        if (claimed.size() >= claimsAwaited || nanos.getAsLong() - holdUntil >= 0) {
            claimsAwaited = 0;
            claimed.clear();
            return false;
        }
        return true;
    }

    /** Provisional holdings whose time is up become free. */
    private void expireProvisional() {
        long now = nanos.getAsLong();
        int n = 0;
        for (int r = 0; r < owner.length; r++) {
            if (provisionalUntil[r] != 0 && now - provisionalUntil[r] >= 0) {
                owner[r] = 0;
                provisionalUntil[r] = 0;
                n++;
            }
        }
        if (n > 0) {
            LOG.info("{}: took back {} region(s) a restarted namenode did not claim", name, n);
        }
    }

    /** The instance holding {@code region}, 0 if none. */
    public synchronized long ownerOf(int region) {
        checkRegion(region);
        expireProvisional();
        return owner[region];
    }

    @Override
    public void handle(RpcCall call) {
        if (!(call.opcode() instanceof Opcode op)) {
            throw notServed(call);
        }
        switch (op) {
            case REGION_GRANT -> {
                RegionGrantRequest r = RegionGrantRequest.decode(call.body());
                call.reply(grant(r.namenodeInstance(), r.count()));
            }
            case REGION_RELEASE -> {
                RegionReleaseRequest r = RegionReleaseRequest.decode(call.body());
                release(r.namenodeInstance(), r.region());
                call.reply(Empty.INSTANCE);
            }
            case REGION_SYNC -> {
                RegionSyncRequest r = RegionSyncRequest.decode(call.body());
                call.reply(sync(r.namenodeInstance(), r.regions()));
            }
            default -> throw notServed(call);
        }
    }

    private CreelException notServed(RpcCall call) {
        return new CreelException(ErrorCode.INVALID_ARGUMENT, name + " is a storage server: it does not serve "
                + call.opcode());
    }

    private int freeRegionsLocked() {
        int n = 0;
        for (long o : owner) {
            if (o == 0) {
                n++;
            }
        }
        return n;
    }

    private long maxTag(int region) {
        long first = (long) region * regionBlocks;
        long end = Math.min(blockCount, first + regionBlocks);
        long max = 0;
        for (long b = first; b < end; b++) {
            long t = tags.get(b);
            if (Long.compareUnsigned(t, max) > 0) {
                max = t;
            }
        }
        return max;
    }

    private void checkRegion(int region) {
        if (region < 0 || region >= owner.length) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + ": region " + region + " does not exist (the "
                    + "server has regions 0.." + (owner.length - 1) + ")");
        }
    }

    private static void checkInstance(long instance) {
        if (instance == 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "namenode instance 0 is not valid");
        }
    }
}
