package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.protocol.Wire;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.allocation.RegionShortage;
import io.creel.namenode.records.RecordStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace of one namenode: the five node types and their rules (see DESIGN.md), as operations
 * over parts that each own one idea — the {@link NodeTable} (nodes by path and id), the
 * {@link Leases} (who may write), the {@link ReuseQueue} (what waits out the reuse delay) and the
 * {@link DirectoryRecords} (listings in the containers' data). This class holds the lock and reports
 * every change to the {@link NamespaceLog}.
 *
 * <p>Small data stays here: a File or KeyValue whose committed bytes fit the inline limit keeps them
 * in its node instead of in blocks, so creating it with its value, or reading it, is one request
 * with no data transfer (see docs/architecture.md, "Small values").
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
    /** The inline limit of a namespace built without one ({@code creel.namenode.inline.max}'s default). */
    public static final int DEFAULT_INLINE_MAX = 4096;
    /** The content of every empty inline node (one array, not one per node). */
    private static final byte[] NO_BYTES = new byte[0];

    private final BlockAllocator allocator;
    private final long blockSize;
    private final int inlineMax;
    private final LongSupplier clock;
    private final NodeTable nodes;
    private final Leases leases = new Leases();
    private final ReuseQueue reuse;
    private final DirectoryRecords records;
    /** Where every change is logged (persistence), or nowhere. */
    private NamespaceLog log = NamespaceLog.NONE;
    /**
     * The answer the operation running under the lock gives if it succeeds, set by it once its
     * change is logged when its outcome waits for a directory record write; read by {@link #settle}
     * in the same lock section, so the answer is logged right behind the change. Null otherwise.
     */
    private Object expected;

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
     *                         blocks (0: never); at most {@link Wire#MAX_INLINE_BYTES} and the block size
     * @param clock            milliseconds, injectable for tests
     */
    public Namespace(BlockAllocator allocator, RecordStore store, long blockSize, long reuseDelayMillis,
                     int inlineMax, LongSupplier clock) {
        if (inlineMax < 0 || inlineMax > Wire.MAX_INLINE_BYTES || inlineMax > blockSize) {
            throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.inline.max must lie between 0 and "
                    + Math.min(Wire.MAX_INLINE_BYTES, blockSize) + " bytes (64 KiB and the block size): " + inlineMax);
        }
        this.allocator = allocator;
        this.blockSize = blockSize;
        this.inlineMax = inlineMax;
        this.clock = clock;
        // Ids, like tags, start from the clock so a restarted namenode never reuses an id a client still holds.
        this.nodes = new NodeTable(clock.getAsLong() << 20, clock.getAsLong());
        this.reuse = new ReuseQueue(reuseDelayMillis, clock);
        this.records = new DirectoryRecords(store, blockSize, reuse, allocator, this, () -> log, clock);
    }

    /**
     * Logs every later change to {@code log}; calls complete only once their changes are durable
     * there. Set before the namespace serves.
     */
    public synchronized void setLog(NamespaceLog log) {
        this.log = log;
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
        return inlineMax;
    }

    /** The nodes, for {@link NamespaceImage} (under this object's lock). */
    NodeTable nodes() {
        return nodes;
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
                expected = null;
                return settle(createLocked(req, owner, request), log.position(), request, Opcode.CREATE, r -> r);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<OpenReply> createLocked(CreateRequest req, Object owner, RequestIdentity request) {
        reuse.runDue();
        Utf8Path path = Utf8Path.parse(req.path());
        if (path.isRoot()) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "/: the root directory always exists");
        }
        if (req.value() != null && req.type() != NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": only a KeyValue is created with its value; "
                    + "write a " + req.type().displayName() + "'s data after creating it");
        }
        allocator.checkClass(req.storageClass(), req.path());
        if (req.type() == NodeType.FILE || req.type() == NodeType.KEYVALUE) {
            // Before anything changes: a create run again after a region grant may outlive its connection.
            leases.checkOwner(owner, path);
        }
        Container parent = nodes.resolveParent(path, req.type());
        byte[] name = path.name();
        long now = clock.getAsLong();
        Placement placement = nodes.placement(req.storageClass(), req.locationClass());
        if (req.type() == NodeType.KEYVALUE) {
            DataNode v = new DataNode(nodes.nextId(), NodeType.KEYVALUE, name, parent, placement, now,
                    Node.State.PENDING);
            if (req.value() != null && req.value().length <= inlineMax) {
                return createWithValue(v, req.value(), request);
            }
            v.addBlock(allocate(v));
            nodes.add(v);
            parent.addPending(v);
            leases.grant(v, owner);
            logCreated(v);
            return CompletableFuture.completedFuture(reply(v));
        }
        Node existing = parent.child(name);
        if (existing != null) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, path + " already exists (a "
                    + existing.type.displayName() + ")" + (req.type() == NodeType.FILE ? "; a File's first create wins" : ""));
        }
        Node n;
        if (req.type() == NodeType.FILE) {
            DataNode f = new DataNode(nodes.nextId(), NodeType.FILE, name, parent, placement, now, Node.State.LIVE);
            f.addBlock(allocate(f));
            n = f;
        } else {
            boolean enumerable = req.type() != NodeType.TABLE || req.enumerable();
            n = new Container(nodes.nextId(), req.type(), name, parent, placement, enumerable, now, Node.State.LIVE);
        }
        parent.putChild(n);
        parent.modifiedMillis = now;
        nodes.add(n);
        nodes.liveAdded(n.type);
        if (n instanceof DataNode f) {
            leases.grant(f, owner);
        }
        CompletableFuture<Void> written;
        try {
            written = addRecord(parent, n);
        } catch (CreelException e) {
            // Nobody ever saw this node: its first block goes back at once, not through the reuse
            // delay (a shortage is retried, and each try would otherwise leave a block pending).
            allocator.freeUnpublished(n.truncateBlocks(0));
            detach(n);
            retire(n);
            throw e;
        }
        logCreated(n);
        OpenReply reply = reply(n);
        expected = reply;
        return written.handle((v, err) -> {
            if (err == null) {
                return reply;
            }
            synchronized (this) {
                if (n.state == Node.State.LIVE) {
                    records.free(n.parent, n);
                    detach(n);
                    retire(n);
                    log.removed(n.id);
                    withdraw(request);
                }
            }
            throw DirectoryRecords.failure(path.toString(), err);
        });
    }

    /** A KeyValue version created holding its whole value inline, and committed at once. */
    private CompletableFuture<OpenReply> createWithValue(DataNode v, byte[] value, RequestIdentity request) {
        Container table = v.parent;
        if (table.enumerable && table.child(v.name) == null) {
            // The key's first value needs a record; fail (or ask for a region) before changing anything.
            growRecords(table, records.blockIndexOf(records.nextSlot(table)));
        }
        v.inline = value.length == 0 ? NO_BYTES : value;
        v.length = value.length;
        nodes.add(v);
        logCreated(v);
        // The client has the value: the reply need not carry it back. Publishing changes nothing it shows.
        OpenReply reply = new OpenReply(v.info(), 0, null, null, inlineMax);
        CompletableFuture<OpenReply> published = publish(v, request).thenApply(info -> reply);
        expected = reply;
        return published;
    }

    /**
     * {@code outcome} once the log holds what it changed (per the sync policy). Called under this
     * object's lock right after the change's records. For an identified {@code request} the answer
     * ({@code asReply} of it: what the client is sent) is logged right behind those records, in the
     * same lock section, so the change and its answer reach the log together and a restarted
     * namenode answers a retry of it instead of applying it again: the outcome's value if it is
     * known, else the answer the operation {@link #expected} (it waits for a directory record
     * write); should that write fail and the change be undone, the undo withdraws the answer in its
     * own lock section ({@link #withdraw}). A failure is not logged: it changed nothing, or was
     * undone, and a retry after a restart runs again.
     */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> settle(CompletableFuture<T> outcome, long logged, RequestIdentity request,
                                            Opcode op, Function<T, Message> asReply) {
        Object promised = expected;
        expected = null;
        if (request == null || !log.keepsAnswers()
                || outcome.isCompletedExceptionally() || (!outcome.isDone() && promised == null)) {
            return log.durable(outcome, logged);
        }
        T answer = outcome.isDone() ? outcome.join() : (T) promised;
        log.answered(request, op, asReply.apply(answer).encoded(), clock.getAsLong());
        long answered = log.position();
        return log.durable(outcome, answered);
    }

    /**
     * An identified request's change was undone after its answer was logged (its directory record
     * could not be written): the answer is withdrawn right behind the undo's records, so a restart
     * never answers for a change it does not have. Under this object's lock.
     */
    private void withdraw(RequestIdentity request) {
        if (request != null && log.keepsAnswers()) {
            log.withdrawn(request);
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
        return new OpenReply(n.info(), 0, readableFirstBlock(n), inlineData(n), inlineMax);
    }

    /**
     * What create and lookup answer: the node, its lease (if any), its first block, its bytes if it
     * keeps them inline, and this namenode's inline limit (so clients learn it).
     */
    private OpenReply reply(Node n) {
        long lease = n instanceof DataNode d ? d.leaseValue() : 0;
        return new OpenReply(n.info(), lease, firstBlock(n), inlineData(n), inlineMax);
    }

    private static byte[] inlineData(Node n) {
        return n instanceof DataNode d ? d.inline : null;
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
                detach(n);
                retire(n);
                log.removed(n.id);
                expected = info;
                return settle(cleared.handle((v, err) -> {
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
                expected = null;
                return settle(moveLocked(sourceText, targetText, request), log.position(), request, Opcode.MOVE, r -> r);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<OpenReply> moveLocked(String sourceText, String targetText, RequestIdentity request) {
        reuse.runDue();
        Utf8Path source = Utf8Path.parse(sourceText);
        Utf8Path target = Utf8Path.parse(targetText);
        if (source.isRoot()) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "/: the root directory cannot be moved");
        }
        Node n = nodes.resolve(source);
        if (target.isRoot() || target.equals(source)) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "cannot move " + source + " to " + target
                    + ": the target exists");
        }
        if (n.type.isContainer() && target.isWithin(source)) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "cannot move " + source + " to " + target
                    + ": a " + n.type.displayName() + " cannot move into its own subtree");
        }
        Container newParent = nodes.resolveParent(target, n.type);
        byte[] newName = target.name();
        Node clash = newParent.child(newName);
        if (clash != null) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "cannot move " + source + " to " + target
                    + ": the target exists (a " + clash.type.displayName() + ")");
        }
        Position old = Position.of(n);
        long now = clock.getAsLong();
        old.parent.removeChild(n);
        place(n, new Position(newParent, newName, -1));
        CompletableFuture<Void> added;
        try {
            added = addRecord(newParent, n);
        } catch (CreelException e) {
            newParent.removeChild(n);
            place(n, old);
            throw e;
        }
        old.parent.modifiedMillis = now;
        newParent.modifiedMillis = now;
        n.modifiedMillis = now;
        log.moved(n.id, newParent.id, n.name, n.slot, now);
        expected = new OpenReply(n.info(), 0, readableFirstBlock(n), inlineData(n), inlineMax);
        // The old record is cleared only once the new one is written, so a failure can move the node back.
        return added.handle((v, err) -> {
            synchronized (this) {
                if (err != null) {
                    undoMove(n, newParent, old, source, target, request);
                    throw DirectoryRecords.failure(target.toString(), err);
                }
                return old.slot < 0 || !old.parent.enumerable ? CompletableFuture.<Void>completedFuture(null)
                        : records.clear(old.parent, old.slot);
            }
        }).thenCompose(cleared -> cleared.handle((v, err) -> {
            if (err != null) {
                LOG.warn("{} moved to {}, but its old directory record could not be cleared: {}", source, target,
                        CreelException.unwrap(err).getMessage());
            }
            synchronized (this) {
                return new OpenReply(n.info(), 0, readableFirstBlock(n), inlineData(n), inlineMax);
            }
        }));
    }

    /** Where a node sits: its container, its name there, its record slot. */
    private record Position(Container parent, byte[] name, int slot) {
        static Position of(Node n) {
            return new Position(n.parent, n.name, n.slot);
        }
    }

    /** Puts {@code n} at {@code p} (its record slot as given; the record is not written here). */
    private static void place(Node n, Position p) {
        n.parent = p.parent();
        n.rename(p.name());
        n.slot = p.slot();
        p.parent().putChild(n);
    }

    /** Moves {@code n} back to {@code old} after its new record could not be written, if nothing changed meanwhile. */
    private void undoMove(Node n, Container newParent, Position old, Utf8Path source, Utf8Path target,
                          RequestIdentity request) {
        boolean movable = n.state == Node.State.LIVE && n.parent == newParent
                && old.parent.state == Node.State.LIVE && old.parent.child(old.name) == null;
        if (!movable) {
            LOG.warn("cannot undo the move of {} to {} after its record write failed: the namespace changed meanwhile",
                    source, target);
            return;
        }
        records.free(newParent, n);
        newParent.removeChild(n);
        place(n, old);
        log.moved(n.id, old.parent.id, old.name, old.slot, n.modifiedMillis);
        withdraw(request);
    }

    // ------------------------------------------------------------------ map

    /**
     * Where block {@code index} of node {@code nodeId} lives. Without a lease ({@code 0}) this only
     * reads the mapping (also of removed nodes, until the reuse delay ends); with the node's lease
     * the next block is allocated if {@code index} is one past the last.
     */
    public synchronized BlockLocation map(long nodeId, long index, long lease) {
        return map(nodeId, index, lease, 0);
    }

    /**
     * Where blocks {@code first} to {@code first + count - 1} of node {@code nodeId} live, read-only as
     * {@link #map(long, long, long)} without a lease; stops at the node's last block. At least block
     * {@code first} must exist (else NOT_FOUND, as MAP).
     */
    public synchronized List<BlockLocation> locate(long nodeId, long first, int count) {
        BlockLocation head = map(nodeId, first, 0);
        Node n = nodes.get(nodeId);
        long end = Math.min(n.blockCount(), first + count);
        List<BlockLocation> out = new ArrayList<>((int) (end - first));
        out.add(head);
        for (long i = first + 1; i < end; i++) {
            out.add(n.block((int) i).at(n.id, i));
        }
        return out;
    }

    /**
     * {@link #map(long, long, long)}; with {@code unreachableTag} (non-zero, with the lease) the
     * writer could not reach the server of block {@code index} as allocated under that tag, and the
     * block is allocated again on another server — unless some of it was published (then those
     * bytes are on that server and nothing can move them). That server is avoided for the rest of
     * the lease. If the block is no longer the one with that tag, it moved already: its current
     * location is returned.
     */
    public synchronized BlockLocation map(long nodeId, long index, long lease, long unreachableTag) {
        reuse.runDue();
        Node n = nodes.get(nodeId);
        if (n == null) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId + " does not exist (removed or replaced)");
        }
        if (lease == 0) {
            if (index < n.blockCount()) {
                return n.block((int) index).at(n.id, index);
            }
            throw new CreelException(ErrorCode.NOT_FOUND, n.path() + " (node " + nodeId + ") has no block at index "
                    + index + "; it has " + n.blockCount()
                    + (inlineData(n) != null ? " (its bytes are kept inline by the namenode)" : ""));
        }
        if (n.state == Node.State.RETIRED) {
            throw new CreelException(ErrorCode.NOT_FOUND, n.path() + " (node " + nodeId
                    + ") was removed or replaced; it can no longer be written");
        }
        if (!(n instanceof DataNode d)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": a " + n.type.displayName()
                    + "'s data is written by the namenode; map it without a lease");
        }
        if (d.leaseValue() != lease) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                    + n.type.displayName() + "'s write lease; only the lease holder may allocate blocks");
        }
        if (unreachableTag != 0) {
            return moveUnreachable(d, index, unreachableTag);
        }
        if (index < d.blockCount()) {
            return d.block((int) index).at(d.id, index);
        }
        if (index > d.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": blocks are allocated in order; with "
                    + d.blockCount() + " blocks the next one is index " + d.blockCount() + ", not " + index);
        }
        AllocatedBlock b = allocate(d);
        d.addBlock(b);
        // A MAP need not wait for its record: the COMMIT that publishes data in this block waits for it.
        log.block(d.id, (int) index, b);
        return b.at(d.id, index);
    }

    private BlockLocation moveUnreachable(DataNode n, long index, long unreachableTag) {
        if (index >= n.blockCount()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": block " + index
                    + " cannot move, it was never allocated (the node has " + n.blockCount() + ")");
        }
        AllocatedBlock old = n.block((int) index);
        if (old.tag() != unreachableTag) {
            return old.at(n.id, index); // moved already, for another piece of the same block
        }
        if (n.inline == null && index * blockSize < n.length) {
            throw new CreelException(ErrorCode.UNAVAILABLE, n.path() + ": block " + index + " holds published bytes "
                    + "on storage server " + old.server().address() + ", which the writer cannot reach; it cannot move");
        }
        Set<Integer> avoid = new HashSet<>(n.lease.unreachable);
        avoid.add(old.server().serverId());
        AllocatedBlock b = allocator.allocate(NodeTable.storageClassOf(n, allocator.defaultClass()),
                NodeTable.locationOf(n), avoid); // throws before anything changed
        n.lease.unreachable = Set.copyOf(avoid);
        n.setBlock((int) index, b);
        allocator.retire(List.of(old));
        log.block(n.id, (int) index, b);
        LOG.info("{}: block {} moved from storage server {}, which its writer cannot reach, to {}", n.path(), index,
                old.server().address(), b.server().address());
        return b.at(n.id, index);
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
                expected = null;
                return settle(commitLocked(nodeId, lease, length, close, data, request), log.position(), request,
                        Opcode.COMMIT, NodeReply::new);
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<NodeInfo> commitLocked(long nodeId, long lease, long length, boolean close,
                                                     byte[] data, RequestIdentity request) {
        reuse.runDue();
        Node node = nodes.get(nodeId);
        if (node == null || node.state == Node.State.RETIRED) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId + " does not exist (removed or replaced)");
        }
        if (!(node instanceof DataNode n)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, node.path() + ": only Files and KeyValues are "
                    + "committed, this is a " + node.type.displayName());
        }
        if (lease == 0 || n.leaseValue() != lease) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                    + n.type.displayName() + "'s write lease; only the lease holder may commit");
        }
        if (length < n.length) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": a committed length may not shrink ("
                    + n.length + " committed, " + length + " given)");
        }
        if (data != null) {
            checkInline(n, data);
        } else {
            long capacity = n.blockCount() * blockSize;
            if (length > capacity) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": length " + length
                        + " exceeds the " + n.blockCount() + " allocated blocks (" + capacity + " bytes); map blocks first");
            }
        }
        Container parent = n.parent;
        if (close && n.type == NodeType.KEYVALUE && parent.state == Node.State.LIVE
                && parent.child(n.name) == null && parent.enumerable) {
            // The key's first value needs a record; fail before changing anything.
            growRecords(parent, records.blockIndexOf(records.nextSlot(parent)));
        }
        n.length = length;
        n.modifiedMillis = clock.getAsLong();
        if (data != null) {
            n.inline = data.length == 0 ? NO_BYTES : data;
            log.inline(n.id, data, n.modifiedMillis);
        } else {
            n.inline = null;
            log.length(n.id, n.length, n.modifiedMillis);
        }
        if (!close) {
            return CompletableFuture.completedFuture(n.info());
        }
        leases.release(n);
        trim(n);
        if (n.type == NodeType.FILE) {
            return CompletableFuture.completedFuture(n.info());
        }
        return publish(n, request);
    }

    /** Checks that {@code n} may keep {@code data} inline. */
    private void checkInline(DataNode n, byte[] data) {
        if (data.length > inlineMax) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": " + data.length + " bytes cannot be "
                    + "kept inline; this namenode keeps at most " + inlineMax + " (creel.namenode.inline.max)");
        }
        if (n.inline == null && n.length > 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": its " + n.length
                    + " committed bytes are in blocks; it cannot be committed inline");
        }
    }

    /** Makes a closed KeyValue version its key's value, retiring the version it replaces. */
    private CompletableFuture<NodeInfo> publish(DataNode v, RequestIdentity request) {
        Container table = v.parent;
        table.removePending(v); // a version created with its value was never pending
        if (table.state != Node.State.LIVE) {
            retire(v);
            throw new CreelException(ErrorCode.NOT_FOUND, v.path() + ": the Table was removed before the commit");
        }
        v.state = Node.State.LIVE;
        nodes.liveAdded(v.type);
        Node old = table.putChild(v);
        table.modifiedMillis = v.modifiedMillis;
        NodeInfo info = v.info();
        if (old != null) {
            // A replacement keeps the key's record slot: the listing names the key, which did not change.
            v.slot = old.slot;
            old.slot = -1;
            retire(old);
            log.published(v.id, v.slot, v.modifiedMillis);
            return CompletableFuture.completedFuture(info);
        }
        CompletableFuture<Void> written;
        try {
            written = addRecord(table, v);
        } catch (CreelException e) {
            detach(v);
            retire(v);
            log.removed(v.id);
            throw e;
        }
        log.published(v.id, v.slot, v.modifiedMillis);
        expected = info;
        String path = v.path();
        return written.handle((x, err) -> {
            if (err == null) {
                return info;
            }
            synchronized (this) {
                if (v.state == Node.State.LIVE && table.child(v.name) == v) {
                    records.free(table, v);
                    detach(v);
                    retire(v);
                    log.removed(v.id);
                    withdraw(request);
                }
            }
            throw DirectoryRecords.failure(path, err);
        });
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
                reuse.runDue();
                Node n = nodes.get(nodeId);
                if (n == null || n.state == Node.State.RETIRED) {
                    throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId
                            + " does not exist (removed or replaced)");
                }
                if (lease == 0 || !(n instanceof DataNode d) || d.leaseValue() != lease) {
                    throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                            + n.type.displayName() + "'s write lease; only the lease holder may give it back");
                }
                leases.release(d);
                NodeInfo info = d.info();
                leaseEnded(d);
                return settle(CompletableFuture.completedFuture(info), log.position(), request, Opcode.COMMIT,
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
        for (DataNode n : leases.endAll(owner)) {
            leaseEnded(n);
        }
    }

    /** What follows a lease that ended without a close: trim a File, drop an uncommitted version. */
    private void leaseEnded(DataNode n) {
        if (n.state == Node.State.PENDING) {
            n.parent.removePending(n);
            retire(n);
            log.removed(n.id);
        } else if (n.state == Node.State.LIVE) {
            trim(n);
        }
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
    public synchronized long forEachDataNode(String pathText, BiConsumer<String, List<AllocatedBlock>> visitor) {
        Node top = nodes.resolve(Utf8Path.parse(pathText));
        long visited = 0;
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Node x = todo.pop();
            if (x instanceof DataNode d) {
                visitor.accept(d.path(), d.blocks());
                visited++;
            } else {
                ((Container) x).childList().forEach(todo::push);
            }
        }
        return visited;
    }

    /**
     * What {@link #moveRecordsOffDeadServers} did: moves started, classes it needs a region in first,
     * and records blocks still on those servers (moving now, or waiting for a region or a free block).
     */
    public record RecordsMoves(int started, Set<String> shortOf, int left) {
    }

    /**
     * Storage servers {@code serverIds} were declared dead: every directory records block on them
     * starts moving to a live server now (rewritten from the namespace), so a listing works again
     * without waiting for the next write into its container. Walks every container once. A block
     * that needs a region granted first is left where it is, its class in {@code shortOf}: ask for a
     * region and call again.
     */
    public synchronized RecordsMoves moveRecordsOffDeadServers(Set<Integer> serverIds) {
        int started = 0;
        int left = 0;
        Set<String> shortOf = new java.util.TreeSet<>();
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(nodes.resolve(Utf8Path.parse("/")));
        while (!todo.isEmpty()) {
            if (todo.pop() instanceof Container c) {
                for (int i = 0; i < c.blockCount(); i++) {
                    if (!c.enumerable || !serverIds.contains(c.block(i).server().serverId())) {
                        continue;
                    }
                    left++;
                    try {
                        if (records.moveOffDead(c, i)) {
                            started++;
                        }
                    } catch (RegionShortage e) {
                        shortOf.add(e.storageClass());
                    }
                }
                c.childList().forEach(todo::push);
            }
        }
        return new RecordsMoves(started, shortOf, left);
    }

    /**
     * Directory records a dead storage server took along, for containers at or below {@code path}:
     * {@code movedTo} is null while they are still on it.
     */
    public record RecordsLoss(String path, long names, StorageServerInfo server, StorageServerInfo movedTo,
                              long unlistedMillis) {
    }

    /**
     * The containers at or below {@code pathText} whose directory records are on a server that is not
     * live (their listing fails), then those whose records were moved off one recently.
     */
    public synchronized List<RecordsLoss> recordsLosses(String pathText) {
        List<RecordsLoss> out = new ArrayList<>();
        Set<Container> under = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(nodes.resolve(Utf8Path.parse(pathText)));
        while (!todo.isEmpty()) {
            if (todo.pop() instanceof Container c) {
                under.add(c);
                for (int i = 0; i < c.blockCount(); i++) {
                    StorageServerInfo s = c.block(i).server();
                    if (c.enumerable && !allocator.isLive(s)) {
                        out.add(new RecordsLoss(c.path(), records.namesIn(c, i), s, null, allocator.silentForMillis(s)));
                    }
                }
                c.childList().forEach(todo::push);
            }
        }
        for (DirectoryRecords.Moved m : records.moved()) {
            if (m.container().state == Node.State.LIVE && under.contains(m.container())) {
                out.add(new RecordsLoss(m.container().path(), m.names(), m.from(), m.to(), m.unlistedMillis()));
            }
        }
        return out;
    }

    /** Ends every retirement whose reuse delay has passed (also done lazily by each call). */
    public synchronized void releaseDue() {
        reuse.runDue();
        allocator.releaseDue();
    }

    // ------------------------------------------------------------------ helpers

    private AllocatedBlock allocate(Node n) {
        Set<Integer> avoid = n instanceof DataNode d && d.lease != null ? d.lease.unreachable : Set.of();
        return allocator.allocate(NodeTable.storageClassOf(n, allocator.defaultClass()), NodeTable.locationOf(n),
                avoid);
    }

    /**
     * Gives {@code child} a record slot in {@code container} (allocating the container's next block
     * if the slot needs it) and writes its record. A region shortage is thrown with nothing changed,
     * so the caller can ask for a region and try again.
     */
    private CompletableFuture<Void> addRecord(Container container, Node child) {
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
    private void growRecords(Container container, long blockIndex) {
        while (container.blockCount() <= blockIndex) {
            AllocatedBlock b = allocate(container);
            container.addBlock(b);
            log.block(container.id, container.blockCount() - 1, b);
        }
        records.ensureWritable(container, (int) blockIndex);
    }

    /** Logs a new node with its first block (if it has one) and its inline bytes (if any). */
    private void logCreated(Node n) {
        log.created(n.id, n.type, n.name, n.parent.id, n.placement.storageClass(), n.placement.locationClass(),
                n.enumerable(), n.state == Node.State.PENDING, n.slot, n.modifiedMillis);
        for (int i = 0; i < n.blockCount(); i++) {
            log.block(n.id, i, n.block(i));
        }
        if (n instanceof DataNode d && d.inline != null) {
            log.inline(d.id, d.inline, d.modifiedMillis);
        }
    }

    private static BlockLocation firstBlock(Node n) {
        return n.blockCount() == 0 ? null : n.block(0).at(n.id, 0);
    }

    /**
     * The first block as a reader (no lease) may learn it: a container's records, or a File's or
     * KeyValue's block 0 once it holds committed bytes. A block a writer holds beyond the committed
     * length goes back at its close without a reuse delay (see {@link #trim}); a reader that had
     * cached its location would later take it for the node's block 0 — and, writing to the node
     * itself, skip allocating it.
     */
    private static BlockLocation readableFirstBlock(Node n) {
        if (n instanceof DataNode d && (d.inline != null || d.length == 0)) {
            return null;
        }
        return firstBlock(n);
    }

    /**
     * Frees blocks beyond the committed length (all of them when the bytes are inline). A length
     * never shrinks, so these blocks were never readable: no reader can hold their locations, and
     * they need no reuse delay.
     */
    private void trim(DataNode n) {
        long keep = n.inline != null ? 0 : (n.length + blockSize - 1) / blockSize;
        if (n.blockCount() > keep) {
            allocator.freeUnpublished(n.truncateBlocks((int) keep));
            log.trimmed(n.id, (int) keep);
        }
    }

    /** Takes the node out of its parent's children (if it is there). */
    private void detach(Node n) {
        if (n.parent != null && n.parent.removeChild(n)) {
            n.parent.modifiedMillis = clock.getAsLong();
        }
    }

    /**
     * Retires a node and everything below it: leases end, blocks start their reuse delay, and the
     * ids stay resolvable by {@link #map} until the delay ends.
     */
    private void retire(Node top) {
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Node x = todo.pop();
            if (x.state == Node.State.RETIRED) {
                continue;
            }
            if (x.state == Node.State.LIVE) {
                nodes.liveRemoved(x.type);
            }
            x.state = Node.State.RETIRED;
            if (x instanceof DataNode d) {
                leases.release(d);
            } else {
                Container c = (Container) x;
                c.childList().forEach(todo::push);
                c.pendingList().forEach(todo::push);
            }
            if (x.blockCount() > 0) {
                allocator.retire(x.blocks());
            }
            long id = x.id;
            reuse.later(() -> nodes.forget(id));
        }
    }
}
