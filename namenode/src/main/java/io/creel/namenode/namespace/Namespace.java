package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.protocol.SyncManyReply;
import io.creel.common.protocol.SyncManyRequest;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.allocation.RegionShortage;
import io.creel.namenode.records.RecordStore;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace of one namenode: the five node types and their rules (see DESIGN.md), as operations
 * coordinated over parts that each own one idea — the {@link NodeTable} (nodes by path and id), the
 * {@link BlockMap} (where blocks are), {@link InlineValues} (small data kept in the node),
 * {@link KeyValueVersions} (a key's versions), {@link Writers} (commits under a lease),
 * {@link Renames} (moves), {@link Retirement} (what leaves), {@link OwnedNodes} and {@link Expiries}
 * (nodes that go away with their owner), the {@link Leases} (who may write), the
 * {@link ReuseQueue} (what waits out the reuse delay), the {@link DirectoryRecords} (listings in the
 * containers' data) and {@link LoggedAnswers} (answers kept for retries). This class holds the lock,
 * orders the steps and reports every change to the {@link NamespaceLog}; docs/architecture.md says
 * what a new node type touches.
 *
 * <p>Every operation runs briefly under this object's monitor (requests arrive on several event-loop
 * threads). Directory-record writes are issued under the monitor, so writes to one slot leave in
 * order; the call's future completes only once its record is written, so a listing reflects every
 * call that has returned. A failed record write undoes the create (or move, or first KeyValue
 * commit) and fails it.
 *
 * <p>Methods returning futures never throw; the others throw {@link CreelException}.
 */
public final class Namespace {
    private static final Logger LOG = LoggerFactory.getLogger(Namespace.class);
    /** The session timeout of a namespace built without one ({@code creel.namenode.session.timeout}'s default). */
    public static final long DEFAULT_SESSION_TIMEOUT_MILLIS = 30_000;
    /** The inline limit of a namespace built without one ({@code creel.namenode.inline.max}'s default). */
    public static final int DEFAULT_INLINE_MAX = 4096;
    private final BlockAllocator allocator;
    private final long blockSize;
    private final InlineValues inline;
    private final LongSupplier clock;
    private final NodeTable nodes;
    private final Leases leases = new Leases();
    private final ReuseQueue reuse;
    private final DirectoryRecords records;
    private final BlockMap blocks;
    private final Retirement retirement;
    private final KeyValueVersions versions;
    private final Renames renames;
    private final Writers writers;
    private final RecordsRepair repair;
    private final Replicas replicas;
    private final Creates creates;
    private final OwnedNodes owned;
    private final Expiries expiries;
    private final Ownership ownership = new Ownership(this);
    /** Where every change is logged (persistence), or nowhere. */
    private NamespaceLog log = NamespaceLog.NONE;
    /** The answers of identified requests, logged with their changes (exactly once across restarts). */
    private final LoggedAnswers answers;

    /** A namespace keeping up to {@link #DEFAULT_INLINE_MAX} bytes of a node inline. */
    public Namespace(BlockAllocator allocator, RecordStore store, long blockSize, long reuseDelayMillis,
                     LongSupplier clock) {
        this(allocator, store, blockSize, reuseDelayMillis, DEFAULT_INLINE_MAX, clock);
    }

    /**
     * @param allocator        hands out data blocks (also for container records)
     * @param store            where directory records are written
     * @param blockSize        bytes per block
     * @param reuseDelayMillis how long removed nodes stay resolvable by id and freed slots wait
     * @param inlineMax        the most bytes a File or KeyValue keeps in its node instead of in
     *                         blocks (0: never); at most {@link io.creel.common.protocol.Wire#MAX_INLINE_BYTES} and the block size
     * @param clock            milliseconds, injectable for tests
     */
    public Namespace(BlockAllocator allocator, RecordStore store, long blockSize, long reuseDelayMillis,
                     int inlineMax, LongSupplier clock) {
        this.inline = new InlineValues(inlineMax, blockSize);
        this.allocator = allocator;
        this.blockSize = blockSize;
        this.clock = clock;
        // Ids, like tags, start from the clock so a restarted namenode never reuses an id a client still holds.
        this.nodes = new NodeTable(clock.getAsLong() << 20, clock.getAsLong());
        this.reuse = new ReuseQueue(reuseDelayMillis, clock);
        this.records = new DirectoryRecords(store, blockSize, reuse, allocator, this, () -> log, clock);
        this.blocks = new BlockMap(nodes, allocator, blockSize, () -> log);
        this.owned = new OwnedNodes(clock, DEFAULT_SESSION_TIMEOUT_MILLIS);
        this.expiries = new Expiries(this, nodes, owned);
        this.retirement = new Retirement(nodes, leases, allocator, reuse, clock, owned);
        this.versions = new KeyValueVersions(this, nodes, leases, blocks, inline, retirement, records);
        this.answers = new LoggedAnswers(() -> this.log, clock);
        this.renames = new Renames(this, nodes, reuse, records, clock);
        this.creates = new Creates(this, nodes, leases, blocks, versions, retirement, records, allocator, reuse,
                clock, expiries);
        this.writers = new Writers(this, nodes, leases, blocks, inline, versions, reuse, blockSize, clock);
        this.repair = new RecordsRepair(records, allocator);
        this.replicas = new Replicas(nodes, allocator, blockSize, () -> log);
    }

    /**
     * Logs every later change to {@code log}; calls complete only once their changes are durable
     * there. Set before the namespace serves.
     */
    public synchronized void setLog(NamespaceLog log) {
        this.log = log;
    }

    /**
     * How long a session-bound node outlives its owner's last heartbeat
     * ({@code creel.namenode.session.timeout}). Set before the namespace serves.
     */
    public void setSessionTimeout(long millis) {
        owned.setSessionTimeout(millis);
    }

    /** See {@link #setSessionTimeout}. */
    public long sessionTimeoutMillis() {
        return owned.sessionTimeoutMillis();
    }

    /** Nodes reachable by path, the root included. */
    public synchronized long nodeCount() {
        return nodes.liveCount();
    }

    /** Nodes reachable by path per type, by {@link NodeType#ordinal()}, the root included. */
    public synchronized long[] nodeCountsByType() {
        return nodes.liveByType();
    }

    /** The most bytes a node keeps inline. */
    public int inlineMax() {
        return inline.max();
    }

    /** The nodes, for {@link NamespaceImage} (under this object's lock). */
    NodeTable nodes() {
        return nodes;
    }

    /** Nodes' owners and modes, and the current credentials (see {@link Ownership}). */
    public Ownership ownership() {
        return ownership;
    }

    /** The expiring nodes, for {@link NamespaceImage} (under this object's lock). */
    OwnedNodes owned() {
        return owned;
    }

    // ------------------------------------------------------------------ create

    /**
     * Creates a node. A File or KeyValue gets its first block and a write lease owned by
     * {@code owner} (the connection); a KeyValue create makes a new invisible version of the key —
     * unless it carries a value within the inline limit: then the version holds it and is committed
     * at once (the reply has no lease).
     */
    public CompletableFuture<OpenReply> create(CreateRequest req, Object owner) {
        return create(req, owner, null);
    }

    /**
     * {@link #create(CreateRequest, Object)} for request {@code request} (may be {@code null}): its
     * answer is logged with the change, so a restarted namenode still answers a retry of it.
     */
    public CompletableFuture<OpenReply> create(CreateRequest req, Object owner, RequestIdentity request) {
        try {
            synchronized (this) {
                answers.begin();
                return answers.settle(creates.create(req, owner, request), log.position(), request, Opcode.CREATE, r -> r);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ------------------------------------------------------------------ lookup

    /**
     * Looks a path up. With {@code forAppend} the File's write lease is granted to {@code owner}
     * (LEASE_CONFLICT while another writer holds it).
     */
    public synchronized OpenReply lookup(String pathText, boolean forAppend, Object owner) {
        reuse.runDue();
        Utf8Path path = Utf8Path.parse(pathText);
        Node n = nodes.resolve(path);
        if (forAppend) {
            if (!(n instanceof DataNode f) || n.type != NodeType.FILE) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": only a File can be opened for append, "
                        + "this is a " + n.type.displayName()
                        + (n.type == NodeType.KEYVALUE ? " (a KeyValue is replaced by a new create)" : ""));
            }
            if (f.lease != null) {
                throw new CreelException(ErrorCode.LEASE_CONFLICT, path
                        + ": another writer holds this File's lease (one writer at a time)");
            }
            leases.checkOwner(owner, path);
            leases.grant(f, owner);
            return reply(f);
        }
        return readerReply(n);
    }

    /** What a reader (no lease) is told of {@code n}: its first block once readable, its inline bytes. */
    OpenReply readerReply(Node n) {
        return new OpenReply(info(n), 0, BlockMap.readableFirstBlock(n), InlineValues.data(n), inline.max());
    }

    /**
     * What create and lookup answer: the node, its lease (if any), its first block, its bytes if it
     * keeps them inline, and this namenode's inline limit (so clients learn it).
     */
    OpenReply reply(Node n) {
        long lease = n instanceof DataNode d ? d.leaseValue() : 0;
        return new OpenReply(info(n), lease, BlockMap.firstBlock(n), InlineValues.data(n), inline.max());
    }

    /** What a reply says of {@code n}: its {@link Node#info()}, with its owner if it expires, and its access. */
    NodeInfo info(Node n) {
        NodeInfo i = owned.isEmpty() || !owned.expires(n.id) ? n.info() : n.info().withExpiry(owned.describe(n.id));
        return ownership.describe(n, i);
    }

    // ------------------------------------------------------------------ expiring nodes

    /**
     * Client {@code high}/{@code low} was heard (any identified request, or its session heartbeat):
     * the expiring nodes it owns live on. Lock-free, for every request's event loop.
     */
    public void renewOwner(long high, long low) {
        owned.renew(high, low);
    }

    /** Nodes that expire with their owner (their subtrees not counted), for operators. */
    public synchronized long expiringNodes() {
        return owned.size();
    }

    /** Expiring nodes removed since this namenode started because their owner went silent, for operators. */
    public synchronized long expiredNodes() {
        return expiries.expired();
    }

    /** Expiring nodes client {@code high}/{@code low} owns in this namespace. */
    public synchronized long ownedBy(long high, long low) {
        return owned.ownedBy(high, low);
    }

    /**
     * The owner of the expiring node at {@code pathText} ({@code request}'s client) hands it to
     * session {@code newOwner} with {@code expiry}, or makes it permanent ({@link Expiry#NONE}); the
     * answer (the node afterwards) is logged with the change for a retry.
     */
    public CompletableFuture<NodeInfo> handOver(String pathText, String newOwner, Expiry expiry,
                                                RequestIdentity request) {
        try {
            synchronized (this) {
                reuse.runDue();
                Node n = expiries.handOver(Utf8Path.parse(pathText), newOwner, expiry, request);
                return answers.settle(CompletableFuture.completedFuture(info(n)), log.position(), request,
                        Opcode.HAND_OVER, NodeReply::new);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Removes every expiring node whose owner has been silent longer than its grace, each with
     * everything below it, as a recursive remove does (its blocks start their reuse delay). The
     * namenode's timer calls this.
     *
     * @return the nodes removed (their subtrees not counted)
     */
    public synchronized int expireDue() {
        return expiries.expireDue();
    }

    // ------------------------------------------------------------------ remove

    /** Removes a node (a container with children only if {@code recursive}); replies with the removed node. */
    public CompletableFuture<NodeInfo> remove(String pathText, boolean recursive) {
        return remove(pathText, recursive, null);
    }

    /** {@link #remove(String, boolean)} for request {@code request} (may be {@code null}), its answer logged. */
    public CompletableFuture<NodeInfo> remove(String pathText, boolean recursive, RequestIdentity request) {
        try {
            synchronized (this) {
                reuse.runDue();
                Utf8Path path = Utf8Path.parse(pathText);
                if (path.isRoot()) {
                    throw new CreelException(ErrorCode.INVALID_ARGUMENT, "/: the root directory cannot be removed");
                }
                Node n = nodes.resolve(path);
                if (n instanceof Container c && c.childCount() > 0 && !recursive) {
                    throw new CreelException(ErrorCode.NOT_EMPTY, path + ": a " + n.type.displayName() + " with "
                            + c.childCount() + " children can only be removed recursively");
                }
                NodeInfo info = n.info();
                CompletableFuture<Void> cleared = records.free(n.parent, n);
                retirement.detach(n);
                retirement.retire(n);
                log.removed(n.id);
                answers.expect(info);
                return answers.settle(cleared.handle((v, err) -> {
                    if (err != null) {
                        // The node is gone either way; a stale record is skipped by listings.
                        LOG.warn("{}: removed, but its directory record could not be cleared: {}", path,
                                CreelException.unwrap(err).getMessage());
                    }
                    return info;
                }), log.position(), request, Opcode.REMOVE, NodeReply::new);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ------------------------------------------------------------------ move

    /**
     * Moves (renames) a node atomically; the target must not exist. Replies with the moved node as a
     * lookup would (no lease), so a handle to it can read its inline bytes.
     */
    public CompletableFuture<OpenReply> move(String sourceText, String targetText) {
        return move(sourceText, targetText, null);
    }

    /** {@link #move(String, String)} for request {@code request} (may be {@code null}), its answer logged. */
    public CompletableFuture<OpenReply> move(String sourceText, String targetText, RequestIdentity request) {
        try {
            synchronized (this) {
                answers.begin();
                return answers.settle(renames.move(sourceText, targetText, request), log.position(), request, Opcode.MOVE, r -> r);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ------------------------------------------------------------------ map

    /**
     * Where block {@code index} of node {@code nodeId} lives. Without a lease ({@code 0}) this only
     * reads the mapping (also of removed nodes, until the reuse delay ends); with the node's lease
     * the next block is allocated if {@code index} is one past the last.
     */
    public synchronized BlockLocation map(long nodeId, long index, long lease) {
        return map(nodeId, index, lease, 0, 0);
    }

    /**
     * Where blocks {@code first} to {@code first + count - 1} of node {@code nodeId} live, read-only as
     * {@link #map(long, long, long)} without a lease; stops at the node's last block. At least block
     * {@code first} must exist (else NOT_FOUND, as MAP).
     */
    public synchronized List<BlockLocation> locate(long nodeId, long first, int count) {
        reuse.runDue();
        return blocks.locate(nodeId, first, count);
    }

    /**
     * {@link #map(long, long, long)}; with {@code unreachableTag} (non-zero, with the lease) the
     * writer could not reach the server of block {@code index} as allocated under that tag, and the
     * block is allocated again on another server — unless some of it was published (then those
     * bytes are on that server and nothing can move them). That server is avoided for the rest of
     * the lease. If the block is no longer the one with that tag, it moved already: its current
     * location is returned. Of a replicated block only the copy on {@code unreachableServer} leaves
     * the block, and the write goes on with the other copies.
     */
    public synchronized BlockLocation map(long nodeId, long index, long lease, long unreachableTag,
                                          int unreachableServer) {
        reuse.runDue();
        return blocks.map(nodeId, index, lease, unreachableTag, unreachableServer);
    }

    // ------------------------------------------------------------------ commit

    /**
     * Publishes a writer's length. With {@code close}, the lease is released and blocks beyond the
     * length freed, and a KeyValue version becomes its key's value atomically (last commit wins).
     */
    public CompletableFuture<NodeInfo> commit(long nodeId, long lease, long length, boolean close) {
        return commit(nodeId, lease, length, close, null);
    }

    /**
     * {@link #commit(long, long, long, boolean)}; with {@code data}, the node's whole content is those
     * bytes, kept inline ({@code length} must be their count): allowed while the node is empty or
     * inline, up to the inline limit. A commit without data of a node that was inline moves it to
     * its blocks (the writer has written all of it there).
     */
    public CompletableFuture<NodeInfo> commit(long nodeId, long lease, long length, boolean close, byte[] data) {
        return commit(nodeId, lease, length, close, data, null);
    }

    /**
     * {@link #commit(long, long, long, boolean, byte[])} for request {@code request} (may be
     * {@code null}), its answer logged.
     */
    public CompletableFuture<NodeInfo> commit(long nodeId, long lease, long length, boolean close, byte[] data,
                                              RequestIdentity request) {
        try {
            synchronized (this) {
                answers.begin();
                return answers.settle(writers.commit(nodeId, lease, length, close, data, request), log.position(), request,
                        Opcode.COMMIT, NodeReply::new);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Each SYNC of {@code request} on its own ({@link SyncManyRequest}), answered once the log holds them. */
    public CompletableFuture<SyncManyReply> syncMany(SyncManyRequest request) {
        synchronized (this) {
            answers.begin();
            return answers.settle(CompletableFuture.completedFuture(new SyncManyReply(writers.syncMany(request.entries()))),
                    log.position(), null, Opcode.SYNC_MANY, r -> r);
        }
    }

    // ------------------------------------------------------------------ connections and time

    /**
     * Ends a writer's lease without publishing anything more: a File keeps its committed length
     * (blocks beyond it are freed), an uncommitted KeyValue version is dropped (its key keeps its
     * value). A writer that failed ends this way, so the node can be written again at once.
     */
    public CompletableFuture<NodeInfo> abandon(long nodeId, long lease) {
        return abandon(nodeId, lease, null);
    }

    /** {@link #abandon(long, long)} for request {@code request} (may be {@code null}), its answer logged. */
    public CompletableFuture<NodeInfo> abandon(long nodeId, long lease, RequestIdentity request) {
        try {
            synchronized (this) {
                NodeInfo info = writers.abandon(nodeId, lease);
                return answers.settle(CompletableFuture.completedFuture(info), log.position(), request, Opcode.COMMIT,
                        NodeReply::new);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A connection closed: its leases are released. Open Files keep their committed length (blocks
     * beyond it are freed); uncommitted KeyValue versions are dropped.
     */
    public synchronized void connectionClosed(Object owner) {
        writers.connectionClosed(owner);
    }

    /** The path of a node (or of a retired one, as it was), or {@code null} if the id is unknown. */
    public synchronized String pathOf(long nodeId) {
        Node n = nodes.get(nodeId);
        return n == null ? null : n.path();
    }

    /**
     * Calls {@code visitor} with the path and blocks of every live File and KeyValue at or below
     * {@code pathText}, under the namespace lock (the visitor must be quick and must not call back).
     * A node that keeps its bytes inline has no blocks.
     *
     * @return the number of nodes visited
     */
    public synchronized long forEachDataNode(String pathText, DataNodeVisitor visitor) {
        Node top = nodes.resolve(Utf8Path.parse(pathText));
        long visited = 0;
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Node x = todo.pop();
            if (x instanceof DataNode d) {
                // Blocks beyond the committed length (a writer's, not yet published) are not checked.
                int published = d.inline != null ? 0
                        : (int) Math.min(d.blockCount(), d.layout(blockSize).blocksFor(d.length));
                visitor.visit(d.path(), NodeTable.replicationOf(d, allocator), d.blocks().subList(0, published));
                visited++;
            } else {
                ((Container) x).childList().forEach(todo::push);
            }
        }
        return visited;
    }

    /** What {@link #forEachDataNode} tells of each node. */
    @FunctionalInterface
    public interface DataNodeVisitor {
        /** A File or KeyValue: its path, its replication factor and its published blocks. */
        void visit(String path, int replication, List<AllocatedBlock> blocks);
    }

    /** Walks every File and KeyValue for blocks short of their replication factor (see {@link Replicas}). */
    public synchronized ReplicationScan replicationWork(int maxTasks) {
        reuse.runDue();
        return replicas.scan(maxTasks);
    }

    /**
     * Allocates the copies {@code task} is short of, on servers of hosts its good copies are not on;
     * none if the block changed since it was found.
     *
     * @throws io.creel.namenode.allocation.RegionShortage when a server must grant a region first
     * @throws CreelException UNAVAILABLE when no live server of another host has room
     */
    public synchronized List<BlockCopy> reserveCopies(RepairTask task) {
        return replicas.reserve(task);
    }

    /**
     * Makes {@code made} (which now hold the block's bytes) copies of the block and drops its copies
     * on dead or draining servers; returns false, freeing {@code made}, if the node changed meanwhile.
     */
    public synchronized boolean installCopies(RepairTask task, List<BlockCopy> made) {
        return replicas.install(task, made);
    }

    /** Copies dropped from blocks since this namenode started because their writer could not reach them. */
    public synchronized long copiesDropped() {
        return blocks.copiesDropped();
    }

    /** Frees copies reserved by {@link #reserveCopies} for a repair that failed. */
    public synchronized void abandonCopies(List<BlockCopy> made) {
        replicas.abandon(made);
    }

    /**
     * What {@link #moveRecordsOffDeadServers} did: moves started, classes it needs a region in first,
     * and records blocks still on those servers (moving now, or waiting for a region or a free block).
     */
    public record RecordsMoves(int started, Set<String> shortOf, int left) {
    }

    /**
     * Storage servers {@code serverIds} were declared dead: every directory records block on them
     * starts moving to a live server now (see {@link RecordsRepair#moveOffDead}).
     */
    public synchronized RecordsMoves moveRecordsOffDeadServers(Set<Integer> serverIds) {
        return repair.moveOffDead(nodes.resolve(Utf8Path.parse("/")), serverIds);
    }

    /**
     * Directory records a dead storage server took along, for containers at or below {@code path}:
     * {@code movedTo} is null while they are still on it.
     */
    public record RecordsLoss(String path, long names, StorageServerInfo server, StorageServerInfo movedTo,
                              long unlistedMillis) {
    }

    /** See {@link RecordsRepair#losses}. */
    public synchronized List<RecordsLoss> recordsLosses(String pathText) {
        return repair.losses(nodes.resolve(Utf8Path.parse(pathText)));
    }

    /** Ends every retirement whose reuse delay has passed (also done lazily by each call). */
    public synchronized void releaseDue() {
        reuse.runDue();
        allocator.releaseDue();
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Gives {@code child} a record slot in {@code container} (allocating the container's next block
     * if the slot needs it) and writes its record. A region shortage is thrown with nothing changed,
     * so the caller can ask for a region and try again.
     */
    CompletableFuture<Void> addRecord(Container container, Node child) {
        if (!container.enumerable) {
            return CompletableFuture.completedFuture(null);
        }
        int slot = records.take(container);
        try {
            growRecords(container, records.blockIndexOf(slot));
        } catch (RegionShortage e) {
            records.untake(container, slot);
            throw e;
        } catch (CreelException e) {
            records.untake(container, slot);
            throw new CreelException(e.code(), child.path() + ": no block for the directory record in "
                    + container.path() + ": " + e.getMessage(), e);
        }
        child.slot = slot;
        return records.write(container, child);
    }

    /**
     * Allocates (and logs) blocks of {@code container}'s records up to block {@code blockIndex}, and
     * makes sure that block is on a live server (see {@link DirectoryRecords#ensureWritable}).
     */
    void growRecords(Container container, long blockIndex) {
        blocks.growTo(container, blockIndex);
        records.ensureWritable(container, (int) blockIndex);
    }

    /** Logs a new node with its first block (if it has one) and its inline bytes (if any). */
    void logCreated(Node n) {
        log.created(n.id, n.type, n.name, n.parent.id, n.placement.storageClass(), n.placement.locationClass(),
                n.placement.replication(), n.enumerable(), n.state == Node.State.PENDING, n.slot, n.modifiedMillis);
        for (int i = 0; i < n.blockCount(); i++) {
            log.block(n.id, i, n.block(i));
        }
        if (n instanceof DataNode d && d.inline != null) {
            log.inline(d.id, d.inline, d.modifiedMillis);
        }
        ownership.stamp(n);
    }

    /** The log as it is now (the parts that log their own changes ask here). */
    NamespaceLog log() {
        return log;
    }

    /** See {@link LoggedAnswers#expect}. Under this object's lock. */
    void expect(Object answer) {
        answers.expect(answer);
    }

    /** See {@link LoggedAnswers#withdraw}. Under this object's lock. */
    void withdraw(RequestIdentity request) {
        answers.withdraw(request);
    }
}
