package io.creel.namenode.allocation;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.registry.ServerRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Hands out blocks of live storage servers: storage classes in configured order (a class with no
 * block free now spills into the next), round-robin over a class's servers, servers matching a
 * location preference first. Freed blocks wait {@code reuseDelay} before they can be handed out
 * again, so readers holding an old location finish (and the block's next tag makes them fail
 * rather than read foreign bytes). Thread-safe.
 */
public final class BlockAllocator {
    private final List<String> classes;
    private final ServerRegistry registry;
    private final long reuseDelayMillis;
    private final LongSupplier clock;
    private final Map<Integer, ServerBlocks> blocks = new HashMap<>();
    /** Last server chosen per class, for round-robin. */
    private final Map<String, Integer> lastChosen = new HashMap<>();
    /** Retired blocks in retirement order; with one fixed delay that is also release order. */
    private final ArrayDeque<Retired> retiring = new ArrayDeque<>();
    private long lastTag;
    /** Told the class and block size (0: whole) whose granted free blocks run low, to ask for regions early. */
    private java.util.function.BiConsumer<String, Integer> lowOnBlocks = (cls, size) -> { };

    private ReplicationFactors factors = ReplicationFactors.NONE;
    /** creel.namenode.first.block.size: the first block's size when a create gives no hint; 0: size classes off. */
    private long firstBlockSize;

    /** How long a server that said it is full is not asked again. */
    static final long FULL_RETRY_MILLIS = 1000;

    /** A region of a server, as granted to this namenode. */
    public record RegionRef(StorageServerInfo server, int region) {
    }

    private record Retired(long readyAt, int serverId, long blockNumber) {
    }

    /**
     * Block counts of one server, as STATUS reports them: blocks this namenode uses, blocks free on
     * the server as far as this namenode knows (not used or retiring here), blocks retiring here,
     * and how many regions it holds there.
     */
    public record Counts(long used, long free, long pending, int regions) {
    }

    /**
     * @param classes          storage classes in allocation order ({@code creel.storage.classes})
     * @param registry         the servers and their liveness
     * @param reuseDelayMillis how long a freed block waits before reuse
     * @param clock            milliseconds, injectable for tests
     */
    public BlockAllocator(List<String> classes, ServerRegistry registry, long reuseDelayMillis, LongSupplier clock) {
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("at least one storage class is needed");
        }
        this.classes = List.copyOf(classes);
        this.registry = registry;
        this.reuseDelayMillis = reuseDelayMillis;
        this.clock = clock;
        // Tags grow across restarts too: a restarted namenode starts above every tag it gave before.
        this.lastTag = clock.getAsLong() << 20;
    }

    /** Sets the copies of each class's blocks where nodes do not say; checks the classes it names. */
    public synchronized void useReplication(ReplicationFactors f) {
        for (String cls : f.namedClasses()) {
            if (!classes.contains(cls)) {
                throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.replication.classes names storage "
                        + "class '" + cls + "', which is not one of " + String.join(", ", classes));
            }
        }
        this.factors = f;
    }

    /** Sets {@code creel.namenode.first.block.size} (0: every block is whole). */
    public synchronized void useFirstBlockSize(long bytes) {
        if (bytes < 0) {
            throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.first.block.size must not be negative");
        }
        this.firstBlockSize = bytes;
    }

    /**
     * The first block of a File or KeyValue expected to hold {@code sizeHint} bytes (0: unknown, then
     * {@code creel.namenode.first.block.size}): a block of the smallest size class of
     * {@code storageClass} that holds that many and has a block free, else a whole block as
     * {@link #allocate(String, String, Set, int)} gives it. A size class costs its block's size, not a
     * whole block's, and the node goes on in whole blocks past it.
     */
    public synchronized AllocatedBlock allocateFirst(String storageClass, String locationClass, Set<Integer> avoid,
                                                     int copies, long sizeHint) {
        long want = sizeHint > 0 ? sizeHint : firstBlockSize;
        if (firstBlockSize > 0 && want < registry.blockSize()) {
            for (int size : registry.sizeClasses(storageClass)) {
                AllocatedBlock b = size >= want ? allocateSized(storageClass, locationClass, avoid, copies, size) : null;
                if (b != null) {
                    return b;
                }
            }
        }
        return allocate(storageClass, locationClass, avoid, copies);
    }

    /** The copies of a block of {@code storageClass} whose node and ancestors do not say. */
    public synchronized int replicationOf(String storageClass) {
        return factors.of(storageClass);
    }

    /** The storage classes in allocation order. */
    public List<String> classes() {
        return classes;
    }

    /** The class used when neither a node nor any ancestor names one. */
    public String defaultClass() {
        return classes.get(0);
    }

    /**
     * Whether {@code server} is live as the registry sees it now (heard from within the timeout,
     * not replaced or decommissioned): data kept there can still be written.
     */
    public boolean isLive(StorageServerInfo server) {
        return registry.isLive(server.serverId());
    }

    /**
     * Whether {@code server} is given up on: not live, and not one the namenode still waits for (a
     * server known from its log has one timeout after a restart to register again).
     */
    public boolean isDeclaredDead(StorageServerInfo server) {
        return registry.isDeclaredDead(server.serverId());
    }

    /** Whether {@code server} is draining: it takes no new block, and what it holds must leave. */
    public boolean isDraining(StorageServerInfo server) {
        ServerRegistry.ServerView v = registry.view(server.serverId());
        return v != null && v.draining() && !v.decommissioned();
    }

    /** How long the namenode has not heard from {@code server} (0 if it does not know it). */
    public long silentForMillis(StorageServerInfo server) {
        ServerRegistry.ServerView v = registry.view(server.serverId());
        return v == null ? 0 : v.heartbeatAgeMillis();
    }

    /** Checks a storage class named in a request: empty (inherit) or one of the configured classes. */
    public void checkClass(String storageClass, String where) {
        if (!storageClass.isEmpty() && !classes.contains(storageClass)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, where + ": unknown storage class '" + storageClass
                    + "'; the classes are " + String.join(", ", classes) + " (creel.storage.classes)");
        }
    }

    /**
     * Allocates one block: from the first class, from {@code storageClass} on in the class order,
     * that has a block free now. A class with nothing free now (its granted blocks all used or
     * waiting out the reuse delay) is full for this allocation, which spills into the next class
     * rather than wait; the servers of the classes passed over are asked for more regions in the
     * background, so later allocations go back to the preferred class. {@code locationClass} (a host
     * name or host id, or "") prefers matching servers within a class.
     *
     * @throws RegionShortage when no class has a block free now but one may still get a region
     *                        (the caller asks for it and tries again)
     * @throws CreelException OUT_OF_SPACE when no class from {@code storageClass} on has a free block
     */
    public synchronized AllocatedBlock allocate(String storageClass, String locationClass) {
        return allocate(storageClass, locationClass, Set.of());
    }

    /**
     * {@link #allocate(String, String)} on servers other than {@code avoid} (server ids): a writer
     * that could not reach those servers asks for its block elsewhere.
     */
    public synchronized AllocatedBlock allocate(String storageClass, String locationClass, Set<Integer> avoid) {
        return allocate(storageClass, locationClass, avoid, 1);
    }

    /**
     * {@link #allocate(String, String, Set)} of a block of {@code copies} copies: the first as a block
     * of one copy is placed, each further one on a server of another host (and another rack, while
     * servers declare racks and a rack is left unused), from the same class order. Either every copy
     * is allocated or none is.
     *
     * @throws CreelException UNAVAILABLE when fewer hosts than {@code copies} have a live server in
     *                        those classes; OUT_OF_SPACE when they have, but without room
     */
    public synchronized AllocatedBlock allocate(String storageClass, String locationClass, Set<Integer> avoid,
                                                int copies) {
        AllocatedBlock first = allocateOne(storageClass, locationClass, avoid);
        if (copies <= 1) {
            return first;
        }
        List<BlockCopy> taken = new ArrayList<>(first.copies());
        try {
            while (taken.size() < copies) {
                taken.add(allocateCopy(storageClass, taken, avoid, copies, first.tag()));
            }
        } catch (RuntimeException e) {
            freeUnpublishedCopies(taken);
            throw e;
        }
        return AllocatedBlock.of(taken);
    }

    /**
     * One more copy of a block that has {@code existing} copies: a server of a host none of them is
     * on (of another rack when one is left), from {@code storageClass} on in the class order.
     *
     * @param wanted the block's replication factor, for the error
     * @param tag    the copy's tag, or 0 for a new one (a copy made later than its block's others)
     * @throws RegionShortage when such a server may still grant a region
     * @throws CreelException OUT_OF_SPACE when such servers are live but none has room; UNAVAILABLE
     *                        when no live server is on another host
     */
    public synchronized BlockCopy allocateCopy(String storageClass, List<BlockCopy> existing, Set<Integer> avoid,
                                               int wanted, long tag) {
        return allocateCopy(storageClass, existing, avoid, wanted, tag, (int) registry.blockSize());
    }

    /** {@link #allocateCopy(String, List, Set, int, long)} of a block of {@code size} bytes (a size class's). */
    public synchronized BlockCopy allocateCopy(String storageClass, List<BlockCopy> existing, Set<Integer> avoid,
                                               int wanted, long tag, int size) {
        releaseDue();
        int start = classes.indexOf(storageClass);
        if (start < 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "unknown storage class '" + storageClass + "'");
        }
        Set<String> hosts = new java.util.HashSet<>();
        Set<String> racks = new java.util.HashSet<>();
        for (BlockCopy c : existing) {
            hosts.add(FailureDomains.host(c.server()));
            racks.add(FailureDomains.rack(c.server()));
        }
        long now = clock.getAsLong();
        StorageServerInfo best = null;
        for (int c = start; c < classes.size() && best == null; c++) {
            StorageServerInfo anyRack = null;
            int last = lastChosen.getOrDefault(classes.get(c), 0);
            for (StorageServerInfo s : registry.liveServers(classes.get(c), size)) {
                if (avoid.contains(s.serverId()) || hosts.contains(FailureDomains.host(s)) || !blocksOf(s).hasFree()) {
                    continue;
                }
                boolean newRack = FailureDomains.rack(s).isEmpty() || !racks.contains(FailureDomains.rack(s));
                if (newRack && (best == null || best.serverId() <= last && s.serverId() > last)) {
                    best = s;
                } else if (!newRack && anyRack == null) {
                    anyRack = s;
                }
            }
            if (best == null) {
                best = anyRack;
            }
            if (best != null) {
                lastChosen.put(classes.get(c), best.serverId());
            }
        }
        if (best != null) {
            return new BlockCopy(best, blocksOf(best).take(), tag != 0 ? tag : ++lastTag);
        }
        for (int c = start; c < classes.size(); c++) {
            for (StorageServerInfo s : registry.liveServers(classes.get(c), size)) {
                if (!avoid.contains(s.serverId()) && !hosts.contains(FailureDomains.host(s))
                        && mayGrow(blocksOf(s), now)) {
                    throw new RegionShortage(classes.get(c), size == registry.blockSize() ? 0 : size);
                }
            }
        }
        Set<String> liveHosts = new java.util.TreeSet<>();
        long pending = 0;
        boolean elsewhere = false;
        for (String cls : classes.subList(start, classes.size())) {
            for (StorageServerInfo s : registry.liveServers(cls, size)) {
                if (!avoid.contains(s.serverId())) {
                    liveHosts.add(FailureDomains.host(s));
                    if (!hosts.contains(FailureDomains.host(s))) {
                        elsewhere = true;
                        pending += blocksOf(s).pending();
                    }
                }
            }
        }
        if (elsewhere) {
            // Servers of other hosts exist and are full: space, not a host, is what is missing.
            throw new CreelException(ErrorCode.OUT_OF_SPACE, "replication " + wanted + ": no free block in storage "
                    + "class" + (start == classes.size() - 1 ? " " : "es ")
                    + String.join(", ", classes.subList(start, classes.size())) + " on a host other than "
                    + String.join(", ", new java.util.TreeSet<>(hosts)) + " for another copy"
                    + (pending == 0 ? "" : " (" + pending + " freed blocks there are waiting out the reuse delay of "
                    + reuseDelayMillis + " ms)"));
        }
        throw new CreelException(ErrorCode.UNAVAILABLE, "replication " + wanted + " needs " + wanted + " copies on "
                + "storage servers of different hosts, and no live server of storage class"
                + (start == classes.size() - 1 ? " " : "es ") + String.join(", ", classes.subList(start, classes.size()))
                + " is on a host other than " + String.join(", ", new java.util.TreeSet<>(hosts)) + " (live hosts: "
                + (liveHosts.isEmpty() ? "none" : String.join(", ", liveHosts)) + ")");
    }

    private AllocatedBlock allocateOne(String storageClass, String locationClass, Set<Integer> avoid) {
        releaseDue();
        int start = classes.indexOf(storageClass);
        if (start < 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "unknown storage class '" + storageClass + "'");
        }
        long now = clock.getAsLong();
        for (int c = start; c < classes.size(); c++) {
            String cls = classes.get(c);
            StorageServerInfo server = choose(cls, locationClass, avoid);
            if (server != null) {
                long number = blocksOf(server).take();
                lastChosen.put(cls, server.serverId());
                for (int skipped = start; skipped < c; skipped++) {
                    if (mayGrow(classes.get(skipped), now)) {
                        lowOnBlocks.accept(classes.get(skipped), 0);
                    }
                }
                if (runningLow(cls, (int) registry.blockSize())) {
                    lowOnBlocks.accept(cls, 0);
                }
                return new AllocatedBlock(server, number, ++lastTag);
            }
        }
        for (int c = start; c < classes.size(); c++) {
            if (mayGrowAvoiding(classes.get(c), now, avoid)) {
                // Nothing is free now, but a server of this class may still grant a region.
                throw new RegionShortage(classes.get(c));
            }
        }
        throw outOfSpace(start, avoid);
    }

    /**
     * A block of {@code size} bytes, a size class smaller than the cluster's block, of
     * {@code storageClass} itself (a size class does not spill into later storage classes), with
     * {@code copies} copies on different hosts — or {@code null} when the servers of that size have
     * none free and none can grant a region now (the caller takes a whole block instead or, for a
     * block that must keep its size, fails).
     *
     * @throws RegionShortage when none is free now but a server of that size may still grant a region
     *                        (the caller asks for one and tries again)
     */
    public synchronized AllocatedBlock allocateSized(String storageClass, String locationClass, Set<Integer> avoid,
                                                     int copies, int size) {
        releaseDue();
        StorageServerInfo server = choose(storageClass, size, locationClass, avoid);
        if (server == null) {
            if (mayGrowAvoiding(storageClass, size, clock.getAsLong(), avoid)) {
                throw new RegionShortage(storageClass, size);
            }
            return null;
        }
        lastChosen.put(storageClass, server.serverId());
        List<BlockCopy> taken = new ArrayList<>(List.of(new BlockCopy(server, blocksOf(server).take(), ++lastTag)));
        if (runningLow(storageClass, size)) {
            lowOnBlocks.accept(storageClass, size);
        }
        try {
            while (taken.size() < copies) {
                taken.add(allocateCopy(storageClass, taken, avoid, copies, taken.get(0).tag(), size));
            }
        } catch (CreelException e) {
            freeUnpublishedCopies(taken);
            if (e instanceof RegionShortage) {
                throw e;
            }
            return null; // too few hosts with blocks of this size: a whole block will do
        }
        return AllocatedBlock.of(taken);
    }

    /** The error of an allocation that found no block: which classes, and what waits out the reuse delay. */
    private CreelException outOfSpace(int start, Set<Integer> avoid) {
        long pending = 0;
        for (String cls : classes.subList(start, classes.size())) {
            for (StorageServerInfo s : registry.liveServers(cls)) {
                pending += blocksOf(s).pending();
            }
        }
        int notBack = 0;
        for (String cls : classes.subList(start, classes.size())) {
            notBack += registry.notBackSinceRestart(cls);
        }
        if (notBack > 0) {
            // Right after a namenode restart its storage servers are still registering again: the
            // space is not gone, it is not back yet, so this is no OUT_OF_SPACE.
            return new CreelException(ErrorCode.UNAVAILABLE, "no free block on a live storage server yet: "
                    + notBack + " storage server" + (notBack == 1 ? "" : "s") + " known from this namenode's log "
                    + (notBack == 1 ? "has" : "have") + " not registered again since it restarted; try again once "
                    + (notBack == 1 ? "it is" : "they are") + " back (bin/creel report lists them as dead)");
        }
        return new CreelException(ErrorCode.OUT_OF_SPACE, "no free block in storage class"
                + (start == classes.size() - 1 ? " " + classes.get(start) : "es " + String.join(", ",
                classes.subList(start, classes.size()))) + " on any live storage server"
                + (avoid.isEmpty() ? "" : " other than the " + avoid.size() + " this writer could not reach")
                + (pending == 0 ? "" : " (" + pending + " freed blocks are waiting out the reuse delay of "
                + reuseDelayMillis + " ms)"));
    }

    /** Where to send the shortage signal of {@link #allocate} ahead of time (called under the allocator's lock). */
    public synchronized void onLowBlocks(java.util.function.BiConsumer<String, Integer> listener) {
        this.lowOnBlocks = listener;
    }

    /** Whether some live server of {@code cls} may still grant this namenode a region. */
    public synchronized boolean mayGrow(String cls, long now) {
        return mayGrowAvoiding(cls, now, Set.of());
    }

    private boolean mayGrowAvoiding(String cls, long now, Set<Integer> avoid) {
        return mayGrowAvoiding(cls, (int) registry.blockSize(), now, avoid);
    }

    private boolean mayGrowAvoiding(String cls, int size, long now, Set<Integer> avoid) {
        for (StorageServerInfo s : registry.liveServers(cls, size)) {
            if (!avoid.contains(s.serverId()) && mayGrow(blocksOf(s), now)) {
                return true;
            }
        }
        return false;
    }

    private static boolean mayGrow(ServerBlocks b, long now) {
        boolean notAllHeld = b.regionBlocks() == 0 || (long) b.grantedRegions() * b.regionBlocks() < b.blockCount();
        return notAllHeld && (b.fullAt() == 0 || now - b.fullAt() >= FULL_RETRY_MILLIS);
    }

    /**
     * Live servers of {@code cls} with blocks of {@code size} (0: whole blocks) worth asking for a
     * region now, in round-robin order.
     */
    public synchronized List<StorageServerInfo> growCandidates(String cls, int size) {
        long now = clock.getAsLong();
        List<StorageServerInfo> out = new ArrayList<>();
        for (StorageServerInfo s : registry.liveServers(cls, size == 0 ? (int) registry.blockSize() : size)) {
            if (mayGrow(blocksOf(s), now)) {
                out.add(s);
            }
        }
        return out;
    }

    private boolean runningLow(String cls, int size) {
        long free = 0;
        long want = 1;
        for (StorageServerInfo s : registry.liveServers(cls, size)) {
            ServerBlocks b = blocksOf(s);
            free += b.free();
            want = Math.max(want, b.regionBlocks() / 2);
        }
        return free < want && mayGrowAvoiding(cls, size, clock.getAsLong(), Set.of());
    }

    /**
     * Records regions a server granted (or confirmed) to this namenode. Tags continue above the
     * highest tag in them, whoever wrote it.
     */
    public synchronized void granted(StorageServerInfo server, int regionBlocks,
                                     List<io.creel.common.protocol.RegionGrantReply.Grant> grants, boolean full) {
        ServerBlocks b = blocksOf(server);
        long now = clock.getAsLong();
        if (regionBlocks > 0) {
            b.learnRegionSize(regionBlocks);
        }
        for (var g : grants) {
            b.grant(g.region(), regionBlocks, now);
            if (Long.compareUnsigned(g.minTag(), lastTag) > 0) {
                lastTag = g.minTag();
            }
        }
        b.markFull(now, full && grants.isEmpty());
    }

    /**
     * Records that {@code blockNumber} of {@code server} holds data this namenode knows of (after a
     * restart, from its log). The block counts as used; its region is claimed from the server with a
     * sync when the server registers.
     */
    public synchronized void restoreUsed(StorageServerInfo server, long blockNumber) {
        blocksOf(server).restore(blockNumber);
    }

    /** Regions of {@code server} holding restored blocks whose regions the server has not confirmed yet. */
    public synchronized List<Integer> restoredRegions(StorageServerInfo server) {
        return blocksOf(server).restoredRegions();
    }

    /** Regions of {@code server} that hold blocks in use or retiring here (claimed again after a restart). */
    public synchronized List<Integer> busyRegions(StorageServerInfo server) {
        return blocksOf(server).busyRegions();
    }

    /** Every region of {@code server} granted to this namenode. */
    public synchronized List<Integer> grantedRegions(StorageServerInfo server) {
        return blocksOf(server).grantedList();
    }

    /**
     * A sync of {@code asked} regions of {@code server} confirmed only {@code confirmed}: the server
     * restarted and another namenode holds the rest now. Those without a block in use are no longer
     * this namenode's to allocate from; returns the ones that are still in use (their blocks may be
     * overwritten by the other namenode: the caller reports them).
     */
    public synchronized List<Integer> unconfirmed(StorageServerInfo server, List<Integer> asked,
                                                  List<Integer> confirmed) {
        ServerBlocks b = blocksOf(server);
        List<Integer> inUse = new ArrayList<>();
        for (int r : asked) {
            if (confirmed.contains(r)) {
                continue;
            }
            if (b.idle(r)) {
                b.ungrant(r);
            } else {
                inUse.add(r);
            }
        }
        return inUse;
    }

    /**
     * Takes out of use every region that has been empty for {@code idleMillis} and returns them, so
     * the caller gives them back to their servers.
     */
    public synchronized List<RegionRef> takeIdleRegions(long idleMillis) {
        releaseDue();
        long now = clock.getAsLong();
        List<RegionRef> out = new ArrayList<>();
        for (StorageServerInfo s : registry.allServers()) {
            ServerBlocks b = blocks.get(s.serverId());
            if (b == null) {
                continue;
            }
            for (int r : b.idleRegions(now, idleMillis)) {
                b.ungrant(r);
                out.add(new RegionRef(s, r));
            }
        }
        return out;
    }

    private StorageServerInfo choose(String cls, String locationClass, Set<Integer> avoid) {
        return choose(cls, (int) registry.blockSize(), locationClass, avoid);
    }

    private StorageServerInfo choose(String cls, int size, String locationClass, Set<Integer> avoid) {
        List<StorageServerInfo> candidates = new ArrayList<>();
        for (StorageServerInfo s : registry.liveServers(cls, size)) {
            if (blocksOf(s).hasFree() && !avoid.contains(s.serverId())) {
                candidates.add(s);
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        if (!locationClass.isEmpty()) {
            List<StorageServerInfo> preferred = candidates.stream()
                    .filter(s -> s.host().equals(locationClass) || s.hostId().equals(locationClass)).toList();
            if (!preferred.isEmpty()) {
                candidates = preferred;
            }
        }
        // Round-robin: the first candidate after the last one chosen, wrapping around.
        int last = lastChosen.getOrDefault(cls, 0);
        for (StorageServerInfo s : candidates) {
            if (s.serverId() > last) {
                return s;
            }
        }
        return candidates.get(0);
    }

    private ServerBlocks blocksOf(StorageServerInfo server) {
        return blocks.computeIfAbsent(server.serverId(), id -> new ServerBlocks(server.blockCount()));
    }

    /** Frees blocks: each becomes allocatable again once the reuse delay has passed. */
    public synchronized void retire(Collection<AllocatedBlock> freed) {
        long readyAt = clock.getAsLong() + reuseDelayMillis;
        for (AllocatedBlock b : freed) {
            for (BlockCopy c : b.copies()) {
                retireCopy(c, readyAt);
            }
        }
        releaseDue();
    }

    /** Frees copies of blocks (dropped from a block that stays), each after the reuse delay like {@link #retire}. */
    public synchronized void retireCopies(Collection<BlockCopy> freed) {
        long readyAt = clock.getAsLong() + reuseDelayMillis;
        for (BlockCopy c : freed) {
            retireCopy(c, readyAt);
        }
        releaseDue();
    }

    private void retireCopy(BlockCopy c, long readyAt) {
        blocksOf(c.server()).retire();
        retiring.addLast(new Retired(readyAt, c.server().serverId(), c.blockNumber()));
    }

    /**
     * Frees blocks that no reader can hold a location of (they were never inside a published
     * length), so they skip the reuse delay. They join the end of their server's free list.
     */
    public synchronized void freeUnpublished(Collection<AllocatedBlock> freed) {
        for (AllocatedBlock b : freed) {
            freeUnpublishedCopies(b.copies());
        }
    }

    /** {@link #freeUnpublished} for copies never written by anyone but their allocator (a repair that gave up). */
    public synchronized void freeUnpublishedCopies(Collection<BlockCopy> freed) {
        for (BlockCopy c : freed) {
            ServerBlocks sb = blocksOf(c.server());
            sb.retire();
            sb.release(c.blockNumber(), clock.getAsLong());
        }
    }

    /** Returns every retired block whose delay has ended to its server's free list. */
    public synchronized void releaseDue() {
        long now = clock.getAsLong();
        while (!retiring.isEmpty() && retiring.peekFirst().readyAt() <= now) {
            Retired r = retiring.removeFirst();
            blocks.get(r.serverId()).release(r.blockNumber(), now);
        }
    }

    /** Restart from a namenode log: every later tag is larger than {@code tag}. */
    public synchronized void advanceTagPast(long tag) {
        lastTag = Math.max(lastTag, tag);
    }

    /** Block counts of a server (all free for one never allocated from). */
    public synchronized Counts counts(StorageServerInfo server) {
        releaseDue();
        ServerBlocks b = blocksOf(server);
        return new Counts(b.used(), b.blockCount() - b.used() - b.pending(), b.pending(), b.grantedRegions());
    }
}
