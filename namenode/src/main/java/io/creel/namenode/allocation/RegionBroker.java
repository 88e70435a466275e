package io.creel.namenode.allocation;

import io.creel.common.error.CreelException;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegionGrantReply;
import io.creel.common.protocol.RegionGrantRequest;
import io.creel.common.protocol.RegionReleaseRequest;
import io.creel.common.protocol.RegionSyncRequest;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.RpcConnections;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This namenode's side of region grants: asks storage servers for regions when the allocator runs
 * low, confirms the regions it holds data in when a server (re)registers, and gives back regions that
 * have been empty for a while so other namenodes can use them. All calls are asynchronous.
 */
public final class RegionBroker {
    private static final Logger LOG = LoggerFactory.getLogger(RegionBroker.class);

    private final BlockAllocator allocator;
    private final RpcConnections connections;
    private final long instance;
    /** One acquisition per class and block size at a time ("class/size"); concurrent callers share it. */
    private final ConcurrentHashMap<String, CompletableFuture<Boolean>> acquiring = new ConcurrentHashMap<>();

    public RegionBroker(BlockAllocator allocator, RpcConnections connections) {
        this.allocator = allocator;
        this.connections = connections;
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == 0);
        this.instance = id;
        allocator.onLowBlocks(this::prefetch);
    }

    /** This namenode instance's identity towards storage servers. */
    public long instance() {
        return instance;
    }

    /**
     * Asks the servers of {@code storageClass} that may still have regions for one more each.
     * Completes with whether any region was granted; never fails (an unreachable server counts as full
     * for a moment).
     */
    public CompletableFuture<Boolean> acquire(String storageClass) {
        return acquire(storageClass, 0);
    }

    /**
     * {@link #acquire(String)} from the servers of {@code storageClass} whose blocks are
     * {@code blockSize} bytes (a size class's; 0 for whole blocks).
     */
    public CompletableFuture<Boolean> acquire(String storageClass, int blockSize) {
        String key = storageClass + "/" + blockSize;
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        CompletableFuture<Boolean> running = acquiring.putIfAbsent(key, mine);
        if (running != null) {
            return running;
        }
        List<StorageServerInfo> candidates = allocator.growCandidates(storageClass, blockSize);
        List<CompletableFuture<Boolean>> asks = new ArrayList<>();
        for (StorageServerInfo s : candidates) {
            asks.add(ask(s, Opcode.REGION_GRANT, new RegionGrantRequest(instance, 1)));
        }
        CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            boolean any = asks.stream().anyMatch(f -> f.getNow(false));
            acquiring.remove(key, mine);
            mine.complete(any);
        });
        return mine;
    }

    private void prefetch(String storageClass, int blockSize) {
        if (!acquiring.containsKey(storageClass + "/" + blockSize)) {
            // Runs under the allocator's lock: only start the asynchronous request here.
            CompletableFuture.runAsync(() -> acquire(storageClass, blockSize));
        }
    }

    /**
     * A server registered: confirm every region this namenode holds there (none for a new server),
     * those it holds data in and the idle ones alike — a server restarted on its volume no longer
     * knows which namenode holds which. An idle region the server did not confirm is dropped (another
     * namenode holds it now); one with blocks in use is reported. New regions are asked for only when
     * needed, so an idle namenode holds nothing.
     */
    public CompletableFuture<Void> serverRegistered(StorageServerInfo server) {
        List<Integer> held = allocator.grantedRegions(server);
        HostPort at = new HostPort(server.host(), server.port());
        return connections.get(at)
                .thenCompose(c -> c.call(Opcode.REGION_SYNC, new RegionSyncRequest(instance, held),
                        RegionGrantReply::decode))
                .handle((reply, e) -> {
                    if (e != null) {
                        LOG.warn("storage server {} did not answer a REGION_SYNC request: {}", server.address(),
                                CreelException.unwrap(e).getMessage());
                        allocator.granted(server, 0, List.of(), true);
                        return null;
                    }
                    allocator.granted(server, reply.regionBlocks(), reply.grants(), false);
                    List<Integer> lost = allocator.unconfirmed(server, held,
                            reply.grants().stream().map(RegionGrantReply.Grant::region).toList());
                    if (!lost.isEmpty()) {
                        LOG.error("storage server {} gave regions {}, which hold blocks of this namenode, to another "
                                + "namenode", server.address(), lost);
                    }
                    return null;
                })
                .thenCompose(ok -> claimRestored(server, SYNC_ATTEMPTS));
    }

    /** How often a refused claim of restored regions is tried again, {@link #SYNC_RETRY_MILLIS} apart. */
    private static final int SYNC_ATTEMPTS = 25;
    private static final long SYNC_RETRY_MILLIS = 200;

    /**
     * Claims the regions holding blocks restored from the log (the first sync reply told the region
     * size). Right after a namenode restart the server may still list them under this namenode's
     * previous instance until it has seen the new one register, so a refusal is retried for a while.
     */
    private CompletableFuture<Void> claimRestored(StorageServerInfo server, int attemptsLeft) {
        List<Integer> restored = allocator.restoredRegions(server);
        if (restored.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        if (attemptsLeft == 0) {
            LOG.error("storage server {} refused regions {} that hold this namenode's data: another namenode holds them",
                    server.address(), restored);
            return CompletableFuture.completedFuture(null);
        }
        return ask(server, Opcode.REGION_SYNC, new RegionSyncRequest(instance, restored)).thenCompose(ok -> {
            if (allocator.restoredRegions(server).isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(SYNC_RETRY_MILLIS,
                    java.util.concurrent.TimeUnit.MILLISECONDS)).thenCompose(x -> claimRestored(server, attemptsLeft - 1));
        });
    }

    /** Gives back every region that has been empty for {@code idleMillis}. */
    public void releaseIdle(long idleMillis) {
        for (BlockAllocator.RegionRef r : allocator.takeIdleRegions(idleMillis)) {
            HostPort at = new HostPort(r.server().host(), r.server().port());
            connections.get(at)
                    .thenCompose(c -> c.call(Opcode.REGION_RELEASE, new RegionReleaseRequest(instance, r.region()),
                            Empty::decode))
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            // The server will take it back when it sees this namenode restart; until then it idles.
                            LOG.warn("cannot give region {} back to {}: {}", r.region(), r.server().address(),
                                    CreelException.unwrap(e).getMessage());
                        } else {
                            LOG.debug("gave region {} back to {}", r.region(), r.server().address());
                        }
                    });
        }
    }

    private CompletableFuture<Boolean> ask(StorageServerInfo server, Opcode op, io.creel.common.protocol.Message req) {
        HostPort at = new HostPort(server.host(), server.port());
        return connections.get(at)
                .thenCompose(c -> c.call(op, req, RegionGrantReply::decode))
                .handle((reply, e) -> {
                    if (e != null) {
                        LOG.warn("storage server {} did not answer a {} request: {}", server.address(), op,
                                CreelException.unwrap(e).getMessage());
                        allocator.granted(server, 0, List.of(), true);
                        return false;
                    }
                    // Only a grant answer says whether the server can give more; a sync's answer is about old regions.
                    allocator.granted(server, reply.regionBlocks(), reply.grants(),
                            op == Opcode.REGION_GRANT && reply.full());
                    return !reply.grants().isEmpty();
                });
    }
}
