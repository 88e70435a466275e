package io.creel.namenode.service;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.AddressRequest;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.FsckRequest;
import io.creel.common.protocol.HandOverRequest;
import io.creel.common.protocol.HeartbeatReply;
import io.creel.common.protocol.HeartbeatRequest;
import io.creel.common.protocol.LocateReply;
import io.creel.common.protocol.LocateRequest;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.MapReply;
import io.creel.common.protocol.MapRequest;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.MoveRequest;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RegisterRequest;
import io.creel.common.protocol.RemoveRequest;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.ScanRequest;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.SessionBeatReply;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcPeer;
import io.creel.common.security.Identity;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.allocation.RegionBroker;
import io.creel.namenode.allocation.RegionShortage;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.TableScans;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.retry.RetryCache;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the namenode opcodes: decodes each request (a malformed body raises a
 * {@link io.creel.common.protocol.ProtocolException}, which closes the connection), runs it against
 * the namespace or registry, and replies when its outcome is known. An operation that needs a block
 * while this namenode holds no free one asks the storage servers for a region and runs again.
 *
 * <p>A request with an identity ({@link RpcCall#identity()}) is answered through the
 * {@link RetryCache}: a retry of it gets the first attempt's answer, and is never applied again.
 * Leases belong to the identified client that took them ({@link ClientSessions}: they outlive a
 * lost connection for a while, so the client can retry and go on writing), else to the connection
 * a request came on, and end when it closes.
 */
public final class NamenodeService implements RequestHandler {
    /** For the status page; written by the event loop that answered the fsck. */
    private volatile LastFsck lastFsck;
    private volatile io.creel.namenode.replication.ReplicaRepair repair;
    /** Servers declared dead: walks left to move their directory records; see {@link #moveRecordsOffDeadServers}. */
    private final java.util.Map<Integer, Integer> recordsWalksLeft = new java.util.HashMap<>();

    private static final Logger LOG = LoggerFactory.getLogger(NamenodeService.class);
    /**
     * Region requests in a row that brought nothing before a shortage is given up: each marks its
     * class full for a moment, so a class order of a few classes needs about one per class.
     */
    private static final int FRUITLESS_REGION_ATTEMPTS = 6;
    /** Attempts in all: under contention, other operations may take each granted region first. */
    private static final int MAX_ATTEMPTS = 64;

    private final Namespace namespace;
    private final ServerRegistry registry;
    private final BlockAllocator allocator;
    private final RegionBroker regions;
    private final RetryCache answers;
    private final ClientSessions clients;
    private final io.creel.namenode.security.PermissionGuard guard;
    private final TableScans scans;

    /**
     * A service over one namenode's namespace, storage-server registry, allocator and region broker,
     * with a retry cache of the default size and expiry and leases held 10 s after a client's last
     * connection.
     */
    public NamenodeService(Namespace namespace, ServerRegistry registry, BlockAllocator allocator,
                           RegionBroker regions) {
        this(namespace, registry, allocator, regions, new RetryCache(RetryCache.DEFAULT_MAX_ENTRIES,
                java.util.concurrent.TimeUnit.MINUTES.toMillis(5), System::currentTimeMillis), 10_000);
    }

    /**
     * @param answers        answers to identified requests (restored ones included)
     * @param leaseHoldMillis how long an identified client's leases outlive its last connection
     */
    public NamenodeService(Namespace namespace, ServerRegistry registry, BlockAllocator allocator,
                           RegionBroker regions, RetryCache answers, long leaseHoldMillis) {
        this(namespace, registry, allocator, regions, answers, leaseHoldMillis, (1 << 20) + (64 << 10));
    }

    /**
     * @param maxFrame the largest frame clients accept ({@code CreelConf.maxFrameSize()}), which bounds
     *                 a SCAN reply ({@link TableScans})
     */
    public NamenodeService(Namespace namespace, ServerRegistry registry, BlockAllocator allocator,
                           RegionBroker regions, RetryCache answers, long leaseHoldMillis, int maxFrame) {
        this.scans = new TableScans(namespace, maxFrame);
        this.namespace = namespace;
        this.registry = registry;
        this.allocator = allocator;
        this.regions = regions;
        this.answers = answers;
        this.clients = new ClientSessions(leaseHoldMillis, namespace::connectionClosed);
        this.guard = new io.creel.namenode.security.PermissionGuard(namespace.ownership());
    }

    /** The answers this namenode keeps for retries. */
    public RetryCache retryCache() {
        return answers;
    }

    @Override
    public void handle(RpcCall call) {
        RequestIdentity id = call.identity();
        if (id != null) {
            // A live owner renews implicitly: any request it sends counts as a heartbeat.
            namespace.renewOwner(id.clientHigh(), id.clientLow());
        }
        if (!(call.opcode() instanceof Opcode op)) {
            throw notServed(call); // a tier's own request (a TierOpcode): those go to its storage servers
        }
        Identity who = guard.admit(call); // null: permissions are off
        switch (op) {
            case CREATE -> {
                CreateRequest r = CreateRequest.decode(call.body());
                guard.mayCreate(who, r.path());
                Object owner = clients.owner(call.peer(), id);
                replyWhenDone(call, once(call, () -> withRegions(() -> guard.as(who,
                        () -> namespace.create(r, owner, id)))));
            }
            case LOOKUP -> {
                LookupRequest r = LookupRequest.decode(call.body());
                guard.mayLookup(who, r.path(), r.forAppend());
                if (r.forAppend()) {
                    // Opening for append takes a lease: a retry must not find it taken by its own first attempt.
                    Object owner = clients.owner(call.peer(), id);
                    replyWhenDone(call, once(call, () -> CompletableFuture.completedFuture(
                            namespace.lookup(r.path(), true, owner))));
                } else {
                    call.reply(guard.shown(who, namespace.lookup(r.path(), false, call.peer())));
                }
            }
            case REMOVE -> {
                RemoveRequest r = RemoveRequest.decode(call.body());
                guard.mayRemove(who, r.path());
                replyWhenDone(call, once(call, () -> namespace.remove(r.path(), r.recursive(), id)
                        .thenApply(NodeReply::new)));
            }
            case MOVE -> {
                MoveRequest r = MoveRequest.decode(call.body());
                guard.mayMove(who, r.source(), r.target());
                replyWhenDone(call, once(call, () -> withRegions(() -> namespace.move(r.source(), r.target(), id))));
            }
            case MAP -> {
                MapRequest r = MapRequest.decode(call.body());
                guard.mayUse(who, r.nodeId(), r.lease() != 0);
                if (r.lease() != 0) {
                    clients.owner(call.peer(), id); // the client is back: its leases stay
                }
                replyWhenDone(call, once(call, () -> withRegions(() -> map(r))));
            }
            case SCAN -> {
                ScanRequest r = ScanRequest.decode(call.body());
                guard.mayList(who, r.path());
                call.reply(guard.shown(who, scans.scan(r)));
            }
            case LOCATE -> {
                LocateRequest r = LocateRequest.decode(call.body());
                guard.mayUse(who, r.nodeId(), false);
                replyWhenDone(call, locate(r));
            }
            case COMMIT -> {
                CommitRequest r = CommitRequest.decode(call.body());
                guard.mayUse(who, r.nodeId(), true);
                clients.owner(call.peer(), id); // the client is back: its leases stay
                replyWhenDone(call, once(call, () -> (r.kind() == CommitRequest.Kind.ABANDON
                        ? namespace.abandon(r.nodeId(), r.lease(), id)
                        : withRegions(() -> namespace.commit(r.nodeId(), r.lease(), r.length(),
                                r.kind() == CommitRequest.Kind.CLOSE, r.data(), id))).thenApply(NodeReply::new)));
            }
            case SYNC_MANY -> {
                io.creel.common.protocol.SyncManyRequest r = io.creel.common.protocol.SyncManyRequest.decode(call.body());
                r.entries().forEach(e -> guard.mayUse(who, e.nodeId(), true));
                clients.owner(call.peer(), id); // the client is back: its leases stay
                replyWhenDone(call, once(call, () -> namespace.syncMany(r)));
            }
            case SESSION_BEAT -> {
                Empty.decode(call.body());
                if (id == null) {
                    throw new CreelException(ErrorCode.INVALID_ARGUMENT, "a session heartbeat must carry the client's id");
                }
                call.reply(new SessionBeatReply(namespace.ownedBy(id.clientHigh(), id.clientLow()),
                        namespace.sessionTimeoutMillis()));
            }
            case HAND_OVER -> {
                HandOverRequest r = HandOverRequest.decode(call.body());
                guard.mayRemove(who, r.path()); // taking a node off its owner's session is as much as removing it
                replyWhenDone(call, once(call, () -> namespace.handOver(r.path(), r.newOwner(), r.expiry(), id)
                        .thenApply(NodeReply::new)));
            }
            case REGISTER -> {
                RegisterRequest r = RegisterRequest.decode(call.body());
                guard.superuserOnly(who, op);
                StorageServerInfo server = registry.register(r.server());
                LOG.info("storage server {} ({} tier, class {}, {} blocks) registered as {}", r.server().address(),
                        r.server().tier(), r.server().storageClass(), r.server().blockCount(), server.serverId());
                call.reply(new RegisterReply(server.serverId(), regions.instance()));
                regions.serverRegistered(server);
            }
            case HEARTBEAT -> {
                HeartbeatRequest r = HeartbeatRequest.decode(call.body());
                guard.superuserOnly(who, op);
                ServerRegistry.Beat beat = registry.heartbeat(r.serverId(), r.localToken());
                call.reply(new HeartbeatReply(beat == ServerRegistry.Beat.KNOWN,
                        beat == ServerRegistry.Beat.DECOMMISSIONED));
            }
            case STATUS -> {
                Empty.decode(call.body());
                call.reply(status());
            }
            case DECOMMISSION -> {
                AddressRequest r = AddressRequest.decode(call.body());
                guard.superuserOnly(who, op);
                replyWhenDone(call, once(call, () -> {
                    StorageServerInfo s = registry.decommission(r.address());
                    LOG.info("storage server {} is draining: no new blocks go there", s.address());
                    checkDrained();
                    return CompletableFuture.completedFuture(statusOf(s));
                }));
            }
            case FSCK -> {
                String path = FsckRequest.decode(call.body()).path();
                guard.superuserOnly(who, op);
                call.reply(fsck(path));
            }
            case SET_ACCESS, CREDENTIAL_PUT, CREDENTIAL_REVOKE, CREDENTIAL_LIST ->
                    replyWhenDone(call, guard.serve(op, call.body(), who));
            default -> throw notServed(call);
        }
    }

    private static CreelException notServed(RpcCall call) {
        return new CreelException(ErrorCode.INVALID_ARGUMENT, "a namenode does not serve " + call.opcode()
                + "; data-plane requests go to a storage server");
    }

    private CompletableFuture<MapReply> map(MapRequest r) {
        try {
            BlockLocation b = namespace.map(r.nodeId(), r.blockIndex(), r.lease(), r.unreachableTag(),
                    r.unreachableServer());
            if (r.lease() == 0) {
                BlockLocation live = liveCopies(b);
                if (live == null) {
                    String path = namespace.pathOf(r.nodeId());
                    StringBuilder where = new StringBuilder();
                    for (BlockLocation c : b.copies()) {
                        ServerRegistry.ServerView v = registry.view(c.server().serverId());
                        where.append(where.length() == 0 ? "" : ", ").append(c.server().address()).append(", which is ")
                                .append(v == null ? "unknown" : v.state() + " (no heartbeat for "
                                        + v.heartbeatAgeMillis() + " ms)");
                    }
                    throw new CreelException(ErrorCode.SERVER_UNKNOWN, (path == null ? "node " + r.nodeId() : path)
                            + ": block " + r.blockIndex() + " is on storage server " + where);
                }
                b = live;
            }
            return CompletableFuture.completedFuture(new MapReply(b));
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * LOCATE: the first block as MAP answers it (with MAP's error for a server that is not live);
     * the list stops before the first later block on a server that is not live, so the reader asks
     * for that one alone and gets the error there.
     */
    private CompletableFuture<LocateReply> locate(LocateRequest r) {
        try {
            java.util.List<BlockLocation> found = namespace.locate(r.nodeId(), r.firstIndex(), r.count());
            java.util.List<BlockLocation> live = new ArrayList<>(found.size());
            for (BlockLocation b : found) {
                BlockLocation l = liveCopies(b);
                if (l == null) {
                    break;
                }
                live.add(l);
            }
            if (live.isEmpty()) {
                return map(new MapRequest(r.nodeId(), r.firstIndex(), 0)).thenApply(m -> new LocateReply(
                        java.util.List.of(m.block())));
            }
            return CompletableFuture.completedFuture(new LocateReply(live));
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * {@code b} as a reader is told it: only its copies on live servers (a reader need not wait for a
     * dead one to time out), or {@code null} if it has none.
     */
    private BlockLocation liveCopies(BlockLocation b) {
        if (b.copyCount() == 1) {
            return registry.isLive(b.server().serverId()) ? b : null;
        }
        java.util.List<io.creel.common.protocol.BlockCopy> live = new ArrayList<>();
        for (BlockLocation c : b.copies()) {
            if (registry.isLive(c.server().serverId())) {
                live.add(new io.creel.common.protocol.BlockCopy(c.server(), c.blockNumber(), c.tag()));
            }
        }
        if (live.isEmpty()) {
            return null;
        }
        io.creel.common.protocol.BlockCopy first = live.get(0);
        return new BlockLocation(b.nodeId(), b.blockIndex(), first.server(), first.blockNumber(), first.tag(),
                live.subList(1, live.size()));
    }

    /**
     * Runs {@code op}; when it fails for want of a granted block, asks the storage servers of that
     * class for a region and runs it again (the operations change nothing when they fail that way).
     */
    private <T> CompletableFuture<T> withRegions(Supplier<CompletableFuture<T>> op) {
        return attempt(op, 0, 1);
    }

    private <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> op, int fruitless, int attempt) {
        CompletableFuture<T> first;
        try {
            first = op.get();
        } catch (CreelException e) {
            first = CompletableFuture.failedFuture(e);
        }
        return first.handle((v, err) -> {
            if (err == null) {
                return CompletableFuture.completedFuture(v);
            }
            CreelException e = CreelException.unwrap(err);
            if (!(e instanceof RegionShortage shortage) || fruitless >= FRUITLESS_REGION_ATTEMPTS
                    || attempt >= MAX_ATTEMPTS) {
                return CompletableFuture.<T>failedFuture(e);
            }
            return regions.acquire(shortage.storageClass(), shortage.blockSize())
                    .thenCompose(granted -> attempt(op, granted ? 0 : fruitless + 1, attempt + 1));
        }).thenCompose(f -> f);
    }

    /** Tells fsck and STATUS what the replica repair found; set once, before serving. */
    public void useRepair(io.creel.namenode.replication.ReplicaRepair repair) {
        this.repair = repair;
    }

    /** The namenode's view of the cluster, as STATUS replies it. */
    public StatusReply status() {
        namespace.releaseDue();
        List<ServerStatus> servers = new ArrayList<>();
        for (ServerRegistry.ServerView s : registry.servers()) {
            servers.add(statusOf(s));
        }
        return new StatusReply(namespace.nodeCount(), allocator.classes(), servers, replication());
    }

    private ServerStatus statusOf(StorageServerInfo s) {
        return statusOf(registry.view(s.serverId()));
    }

    private ServerStatus statusOf(ServerRegistry.ServerView s) {
        BlockAllocator.Counts c = allocator.counts(s.info());
        return new ServerStatus(s.info(), s.state(), c.used(), c.free(), c.pending(), s.heartbeatAgeMillis());
    }

    /** Draining servers that hold no block of this namenode any more are decommissioned. */
    public void checkDrained() {
        namespace.releaseDue();
        for (StorageServerInfo s : registry.draining()) {
            BlockAllocator.Counts c = allocator.counts(s);
            if (c.used() == 0 && c.pending() == 0) {
                registry.drained(s.serverId());
                LOG.info("storage server {} holds no blocks of this namenode any more: decommissioned", s.address());
            }
        }
    }

    private io.creel.common.protocol.ReplicationProgress replication() {
        return repair == null ? io.creel.common.protocol.ReplicationProgress.NONE : repair.progress();
    }

    /**
     * Every File and KeyValue under {@code path} with blocks that have no copy on a live server
     * (lost), and those with blocks short of their replication factor on live, non-draining servers.
     */
    private FsckReply fsck(String path) {
        List<FsckReply.Damaged> damaged = new ArrayList<>();
        List<FsckReply.Damaged> under = new ArrayList<>();
        long checked = namespace.forEachDataNode(path, (nodePath, replication, blocks) -> {
            long lost = 0;
            long short_ = 0;
            Map<String, String> servers = new TreeMap<>();
            for (AllocatedBlock b : blocks) {
                int live = 0;
                int good = 0;
                for (io.creel.common.protocol.BlockCopy c : b.copies()) {
                    int id = c.server().serverId();
                    ServerRegistry.ServerView v = registry.view(id);
                    if (registry.isLive(id)) {
                        live++;
                        if (v == null || !v.draining()) {
                            good++;
                            continue;
                        }
                    }
                    servers.put(c.server().address(), c.server().address() + " (" + (v == null ? "unknown"
                            : v.state()) + ")");
                }
                if (live == 0) {
                    lost++;
                } else if (good < replication) {
                    short_++;
                }
            }
            if (lost > 0 && damaged.size() < FsckReply.MAX_ENTRIES) {
                damaged.add(new FsckReply.Damaged(nodePath, lost, blocks.size(), List.copyOf(servers.values())));
            }
            if (short_ > 0 && under.size() < FsckReply.MAX_ENTRIES) {
                under.add(new FsckReply.Damaged(nodePath, short_, blocks.size(), List.copyOf(servers.values())));
            }
        });
        List<FsckReply.Records> records = new ArrayList<>();
        for (Namespace.RecordsLoss r : namespace.recordsLosses(path)) {
            if (records.size() < FsckReply.MAX_ENTRIES) {
                records.add(new FsckReply.Records(r.path(), r.names(), describe(r.server()),
                        r.movedTo() == null ? "" : r.movedTo().address(), r.unlistedMillis()));
            }
        }
        FsckReply reply = new FsckReply(checked, List.copyOf(damaged), List.copyOf(records), List.copyOf(under),
                replication());
        lastFsck = new LastFsck(path, System.currentTimeMillis(), reply);
        return reply;
    }

    /** A server as fsck names it: host:port and its state. */
    private String describe(StorageServerInfo server) {
        ServerRegistry.ServerView v = registry.view(server.serverId());
        return server.address() + " (" + (v == null ? "unknown" : v.state()) + ")";
    }

    /**
     * Moves the directory records off every server declared dead (the namenode's timer calls this),
     * instead of at the next write into each container, and off every draining one (it is
     * decommissioned only once it holds no block). Each tick walks the namespace again for a
     * server that still holds records (a move under way, one that failed, one that waits for a region,
     * asked for here), for at most {@value #RECORDS_WALKS} ticks after its death; after that the next
     * write into a container moves its records. A server that comes back and dies again starts over.
     */
    public void moveRecordsOffDeadServers() {
        java.util.Set<Integer> dead = new java.util.TreeSet<>(registry.declaredDead());
        // A draining server is left only once it holds no block: directory records must move off it too.
        registry.draining().forEach(s -> dead.add(s.serverId()));
        java.util.Set<Integer> walk = new java.util.TreeSet<>();
        synchronized (recordsWalksLeft) {
            recordsWalksLeft.keySet().retainAll(dead);
            for (int id : dead) {
                if (recordsWalksLeft.computeIfAbsent(id, k -> RECORDS_WALKS) > 0) {
                    walk.add(id);
                }
            }
        }
        if (walk.isEmpty()) {
            return;
        }
        Namespace.RecordsMoves moves = namespace.moveRecordsOffDeadServers(walk);
        if (moves.started() > 0) {
            LOG.info("storage server(s) {} declared dead: {} directory records block(s) move to live servers", walk,
                    moves.started());
        }
        synchronized (recordsWalksLeft) {
            for (int id : walk) {
                recordsWalksLeft.computeIfPresent(id, (k, n) -> moves.left() == 0 ? 0 : n - 1);
            }
        }
        moves.shortOf().forEach(regions::acquire); // the next tick moves what waited for it
    }

    /** Walks of the namespace, one per timer tick, to move the records off a server declared dead. */
    private static final int RECORDS_WALKS = 30;

    /** The last fsck this namenode answered: what was checked, when, and what it found. */
    public record LastFsck(String path, long atMillis, FsckReply reply) {
    }

    /** The last fsck answered since this namenode started, or null if none was asked for. */
    public LastFsck lastFsck() {
        return lastFsck;
    }

    /**
     * {@code op}'s outcome, or — for a retry of an identified request — the first attempt's
     * ({@link RetryCache}); {@code op} runs at most once per request identity.
     */
    private CompletableFuture<Message> once(RpcCall call, Supplier<CompletableFuture<? extends Message>> op) {
        // handle() lets only core opcodes this far
        return answers.answer(call.identity(), (Opcode) call.opcode(), op);
    }

    private static void replyWhenDone(RpcCall call, CompletableFuture<? extends Message> outcome) {
        outcome.whenComplete((reply, err) -> {
            if (err != null) {
                call.fail(err);
            } else {
                call.reply(reply);
            }
        });
    }

    @Override
    public void connectionClosed(RpcPeer peer) {
        clients.connectionClosed(peer);
    }
}
