package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.records.RecordStore;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace of one namenode: the five node types and their rules (see BRIEF/DESIGN), write
 * leases, KeyValue versions, retirement of removed nodes, and the directory records of enumerable
 * containers.
 *
 * <p>Every mutation runs briefly under this object's monitor (requests arrive on several event-loop
 * threads). Directory-record writes are issued under the monitor, so writes to one slot leave in
 * order (and are chained per slot, so they also complete in order); the call's future completes
 * only once its record is written, so a listing reflects every call that has returned. A failed
 * record write undoes the create (or move, or first KeyValue commit) and fails it.
 *
 * <p>Methods returning futures never throw; the others throw {@link CreelException}.
 */
public final class Namespace {
    private static final Logger LOG = LoggerFactory.getLogger(Namespace.class);

    final BlockAllocator allocator;
    private final RecordStore records;
    private final long blockSize;
    private final long reuseDelayMillis;
    private final LongSupplier clock;
    final Node root;
    final Map<Long, Node> byId = new HashMap<>();
    private final Map<Object, Set<Node>> leasesByOwner = new HashMap<>();
    private final ArrayDeque<Delayed> delayed = new ArrayDeque<>();
    private final ConcurrentHashMap<SlotKey, CompletableFuture<Void>> lastWrite = new ConcurrentHashMap<>();
    long lastId;
    long liveCount;
    /** Where every change is logged (persistence), or nowhere. */
    private NamespaceLog log = NamespaceLog.NONE;

    private record Delayed(long readyAt, Runnable action) {
    }

    private record SlotKey(long containerId, int slot) {
    }

    /**
     * @param allocator        hands out data blocks (also for container records)
     * @param records          where directory records are written
     * @param blockSize        bytes per block
     * @param reuseDelayMillis how long removed nodes stay resolvable by id and freed slots wait
     * @param clock            milliseconds, injectable for tests
     */
    public Namespace(BlockAllocator allocator, RecordStore records, long blockSize, long reuseDelayMillis,
                     LongSupplier clock) {
        this.allocator = allocator;
        this.records = records;
        this.blockSize = blockSize;
        this.reuseDelayMillis = reuseDelayMillis;
        this.clock = clock;
        // Ids, like tags, start from the clock so a restarted namenode never reuses an id a client still holds.
        this.lastId = clock.getAsLong() << 20;
        this.root = new Node(++lastId, NodeType.DIRECTORY, "", null, "", "", true, clock.getAsLong(),
                Node.State.LIVE);
        byId.put(root.id, root);
        liveCount = 1;
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
        return liveCount;
    }

    // ------------------------------------------------------------------ create

    /**
     * Creates a node. A File or KeyValue gets its first block and a write lease owned by
     * {@code owner} (the connection); a KeyValue create makes a new invisible version of the key.
     */
    public CompletableFuture<OpenReply> create(CreateRequest req, Object owner) {
        try {
            CompletableFuture<OpenReply> outcome;
            long logged;
            synchronized (this) {
                outcome = createLocked(req, owner);
                logged = log.position();
            }
            return log.durable(outcome, logged);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<OpenReply> createLocked(CreateRequest req, Object owner) {
        releaseDueLocked();
        PathName path = PathName.parse(req.path());
        if (path.isRoot()) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "/: the root directory always exists");
        }
        allocator.checkClass(req.storageClass(), req.path());
        Node parent = resolveParent(path, req.type());
        String name = path.name();
        long now = clock.getAsLong();
        boolean enumerable = req.type() != NodeType.TABLE || req.enumerable();
        if (req.type() == NodeType.KEYVALUE) {
            Node v = new Node(++lastId, NodeType.KEYVALUE, name, parent, req.storageClass(), req.locationClass(),
                    true, now, Node.State.PENDING);
            v.blocks.add(allocator.allocate(storageClassOf(v), locationOf(v)));
            byId.put(v.id, v);
            parent.pendingVersions.add(v);
            grantLease(v, owner);
            logCreated(v);
            return CompletableFuture.completedFuture(new OpenReply(v.info(), v.lease, firstBlock(v)));
        }
        Node existing = parent.children.get(name);
        if (existing != null) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, path + " already exists (a "
                    + existing.type.displayName() + ")" + (req.type() == NodeType.FILE ? "; a File's first create wins" : ""));
        }
        Node n = new Node(++lastId, req.type(), name, parent, req.storageClass(), req.locationClass(), enumerable, now,
                Node.State.LIVE);
        if (n.type == NodeType.FILE) {
            n.blocks.add(allocator.allocate(storageClassOf(n), locationOf(n)));
        }
        parent.children.put(name, n);
        parent.modifiedMillis = now;
        byId.put(n.id, n);
        liveCount++;
        if (n.type == NodeType.FILE) {
            grantLease(n, owner);
        }
        CompletableFuture<Void> written;
        try {
            written = addRecord(parent, n);
        } catch (CreelException e) {
            detach(n);
            retire(n);
            throw e;
        }
        logCreated(n);
        OpenReply reply = new OpenReply(n.info(), n.lease, firstBlock(n));
        return written.handle((v, err) -> {
            if (err == null) {
                return reply;
            }
            synchronized (this) {
                if (n.state == Node.State.LIVE) {
                    freeSlot(n.parent, n);
                    detach(n);
                    retire(n);
                    log.removed(n.id);
                }
            }
            throw recordFailure(path.toString(), err);
        });
    }

    // ------------------------------------------------------------------ lookup

    /**
     * Looks a path up. With {@code forAppend} the File's write lease is granted to {@code owner}
     * (LEASE_CONFLICT while another writer holds it).
     */
    public synchronized OpenReply lookup(String pathText, boolean forAppend, Object owner) {
        releaseDueLocked();
        PathName path = PathName.parse(pathText);
        Node n = resolve(path);
        long lease = 0;
        if (forAppend) {
            if (n.type != NodeType.FILE) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": only a File can be opened for append, "
                        + "this is a " + n.type.displayName()
                        + (n.type == NodeType.KEYVALUE ? " (a KeyValue is replaced by a new create)" : ""));
            }
            if (n.lease != 0) {
                throw new CreelException(ErrorCode.LEASE_CONFLICT, path
                        + ": another writer holds this File's lease (one writer at a time)");
            }
            grantLease(n, owner);
            lease = n.lease;
        }
        return new OpenReply(n.info(), lease, firstBlock(n));
    }

    // ------------------------------------------------------------------ remove

    /** Removes a node (a container with children only if {@code recursive}); replies with the removed node. */
    public CompletableFuture<NodeInfo> remove(String pathText, boolean recursive) {
        try {
            synchronized (this) {
                releaseDueLocked();
                PathName path = PathName.parse(pathText);
                if (path.isRoot()) {
                    throw new CreelException(ErrorCode.INVALID_ARGUMENT, "/: the root directory cannot be removed");
                }
                Node n = resolve(path);
                if (n.type.isContainer() && !n.children.isEmpty() && !recursive) {
                    throw new CreelException(ErrorCode.NOT_EMPTY, path + ": a " + n.type.displayName() + " with "
                            + n.children.size() + " children can only be removed recursively");
                }
                NodeInfo info = n.info();
                Node parent = n.parent;
                CompletableFuture<Void> cleared = freeSlot(parent, n);
                detach(n);
                retire(n);
                log.removed(n.id);
                return log.durable(cleared.handle((v, err) -> {
                    if (err != null) {
                        // The node is gone either way; a stale record is skipped by listings.
                        LOG.warn("{}: removed, but its directory record could not be cleared: {}", path,
                                CreelException.unwrap(err).getMessage());
                    }
                    return info;
                }), log.position());
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ------------------------------------------------------------------ move

    /** Moves (renames) a node atomically; the target must not exist. Replies with the moved node. */
    public CompletableFuture<NodeInfo> move(String sourceText, String targetText) {
        try {
            CompletableFuture<NodeInfo> outcome;
            long logged;
            synchronized (this) {
                outcome = moveLocked(sourceText, targetText);
                logged = log.position();
            }
            return log.durable(outcome, logged);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<NodeInfo> moveLocked(String sourceText, String targetText) {
        releaseDueLocked();
        PathName source = PathName.parse(sourceText);
        PathName target = PathName.parse(targetText);
        if (source.isRoot()) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "/: the root directory cannot be moved");
        }
        Node n = resolve(source);
        if (target.isRoot() || target.equals(source)) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "cannot move " + source + " to " + target
                    + ": the target exists");
        }
        if (n.type.isContainer() && target.isWithin(source)) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "cannot move " + source + " to " + target
                    + ": a " + n.type.displayName() + " cannot move into its own subtree");
        }
        Node newParent = resolveParent(target, n.type);
        Node clash = newParent.children.get(target.name());
        if (clash != null) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "cannot move " + source + " to " + target
                    + ": the target exists (a " + clash.type.displayName() + ")");
        }
        Node oldParent = n.parent;
        String oldName = n.name;
        int oldSlot = n.slot;
        long now = clock.getAsLong();
        oldParent.children.remove(oldName);
        n.parent = newParent;
        n.name = target.name();
        n.slot = -1;
        newParent.children.put(n.name, n);
        CompletableFuture<Void> added;
        try {
            added = addRecord(newParent, n);
        } catch (CreelException e) {
            newParent.children.remove(n.name);
            n.parent = oldParent;
            n.name = oldName;
            n.slot = oldSlot;
            oldParent.children.put(oldName, n);
            throw e;
        }
        oldParent.modifiedMillis = now;
        newParent.modifiedMillis = now;
        n.modifiedMillis = now;
        log.moved(n.id, newParent.id, n.name, n.slot, now);
        // The old record is cleared only once the new one is written, so a failure can move the node back.
        return added.handle((v, err) -> {
            synchronized (this) {
                if (err != null) {
                    undoMove(n, newParent, oldParent, oldName, oldSlot, source, target);
                    throw recordFailure(target.toString(), err);
                }
                return oldSlot < 0 || oldParent.slots == null ? CompletableFuture.<Void>completedFuture(null)
                        : clearSlot(oldParent, oldSlot);
            }
        }).thenCompose(cleared -> cleared.handle((v, err) -> {
            if (err != null) {
                LOG.warn("{} moved to {}, but its old directory record could not be cleared: {}", source, target,
                        CreelException.unwrap(err).getMessage());
            }
            synchronized (this) {
                return n.info();
            }
        }));
    }

    private void undoMove(Node n, Node newParent, Node oldParent, String oldName, int oldSlot, PathName source,
                          PathName target) {
        boolean movable = n.state == Node.State.LIVE && n.parent == newParent
                && oldParent.state == Node.State.LIVE && !oldParent.children.containsKey(oldName);
        if (!movable) {
            LOG.warn("cannot undo the move of {} to {} after its record write failed: the namespace changed meanwhile",
                    source, target);
            return;
        }
        freeSlot(newParent, n);
        newParent.children.remove(n.name);
        n.parent = oldParent;
        n.name = oldName;
        n.slot = oldSlot;
        oldParent.children.put(oldName, n);
        log.moved(n.id, oldParent.id, oldName, oldSlot, n.modifiedMillis);
    }

    // ------------------------------------------------------------------ map

    /**
     * Where block {@code index} of node {@code nodeId} lives. Without a lease ({@code 0}) this only
     * reads the mapping (also of removed nodes, until the reuse delay ends); with the node's lease
     * the next block is allocated if {@code index} is one past the last.
     */
    public synchronized BlockLocation map(long nodeId, long index, long lease) {
        releaseDueLocked();
        Node n = byId.get(nodeId);
        if (n == null) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId + " does not exist (removed or replaced)");
        }
        if (lease == 0) {
            if (index < n.blocks.size()) {
                return n.blocks.get((int) index).at(n.id, index);
            }
            throw new CreelException(ErrorCode.NOT_FOUND, n.path() + " (node " + nodeId + ") has no block at index "
                    + index + "; it has " + n.blocks.size());
        }
        if (n.state == Node.State.RETIRED) {
            throw new CreelException(ErrorCode.NOT_FOUND, n.path() + " (node " + nodeId
                    + ") was removed or replaced; it can no longer be written");
        }
        if (n.type.isContainer()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": a " + n.type.displayName()
                    + "'s data is written by the namenode; map it without a lease");
        }
        if (n.lease != lease) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                    + n.type.displayName() + "'s write lease; only the lease holder may allocate blocks");
        }
        if (index < n.blocks.size()) {
            return n.blocks.get((int) index).at(n.id, index);
        }
        if (index > n.blocks.size()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": blocks are allocated in order; with "
                    + n.blocks.size() + " blocks the next one is index " + n.blocks.size() + ", not " + index);
        }
        AllocatedBlock b = allocator.allocate(storageClassOf(n), locationOf(n));
        n.blocks.add(b);
        // A MAP need not wait for its record: the COMMIT that publishes data in this block waits for it.
        log.block(n.id, (int) index, b);
        return b.at(n.id, index);
    }

    // ------------------------------------------------------------------ commit

    /**
     * Publishes a writer's length. With {@code close}, the lease is released and blocks beyond the
     * length freed, and a KeyValue version becomes its key's value atomically (last commit wins).
     */
    public CompletableFuture<NodeInfo> commit(long nodeId, long lease, long length, boolean close) {
        try {
            CompletableFuture<NodeInfo> outcome;
            long logged;
            synchronized (this) {
                outcome = commitLocked(nodeId, lease, length, close);
                logged = log.position();
            }
            return log.durable(outcome, logged);
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<NodeInfo> commitLocked(long nodeId, long lease, long length, boolean close) {
        releaseDueLocked();
        Node n = byId.get(nodeId);
        if (n == null || n.state == Node.State.RETIRED) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId + " does not exist (removed or replaced)");
        }
        if (n.type != NodeType.FILE && n.type != NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": only Files and KeyValues are committed, "
                    + "this is a " + n.type.displayName());
        }
        if (lease == 0 || n.lease != lease) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                    + n.type.displayName() + "'s write lease; only the lease holder may commit");
        }
        if (length < n.length) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": a committed length may not shrink ("
                    + n.length + " committed, " + length + " given)");
        }
        long capacity = n.blocks.size() * blockSize;
        if (length > capacity) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": length " + length
                    + " exceeds the " + n.blocks.size() + " allocated blocks (" + capacity + " bytes); map blocks first");
        }
        if (close && n.type == NodeType.KEYVALUE && n.parent.state == Node.State.LIVE
                && !n.parent.children.containsKey(n.name)) {
            reserveRecordBlock(n.parent); // the key's first value needs a record; fail before changing anything
        }
        n.length = length;
        n.modifiedMillis = clock.getAsLong();
        log.length(n.id, n.length, n.modifiedMillis);
        if (!close) {
            return CompletableFuture.completedFuture(n.info());
        }
        releaseLease(n);
        trim(n);
        if (n.type == NodeType.FILE) {
            return CompletableFuture.completedFuture(n.info());
        }
        return publish(n);
    }

    /** Makes a closed KeyValue version its key's value, retiring the version it replaces. */
    private CompletableFuture<NodeInfo> publish(Node v) {
        Node table = v.parent;
        table.pendingVersions.remove(v);
        if (table.state != Node.State.LIVE) {
            retire(v);
            throw new CreelException(ErrorCode.NOT_FOUND, v.path() + ": the Table was removed before the commit");
        }
        Node old = table.children.get(v.name);
        v.state = Node.State.LIVE;
        liveCount++;
        table.children.put(v.name, v);
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
        String path = v.path();
        return written.handle((x, err) -> {
            if (err == null) {
                return info;
            }
            synchronized (this) {
                if (v.state == Node.State.LIVE && table.children.get(v.name) == v) {
                    freeSlot(table, v);
                    detach(v);
                    retire(v);
                    log.removed(v.id);
                }
            }
            throw recordFailure(path, err);
        });
    }

    // ------------------------------------------------------------------ connections and time

    /**
     * A connection closed: its leases are released. Open Files keep their committed length (blocks
     * beyond it are freed); uncommitted KeyValue versions are dropped.
     */
    public synchronized void connectionClosed(Object owner) {
        Set<Node> held = leasesByOwner.remove(owner);
        if (held == null) {
            return;
        }
        for (Node n : held) {
            n.lease = 0;
            n.leaseOwner = null;
            if (n.state == Node.State.PENDING) {
                n.parent.pendingVersions.remove(n);
                retire(n);
                log.removed(n.id);
            } else if (n.state == Node.State.LIVE) {
                trim(n);
            }
        }
    }

    /** Ends every retirement whose reuse delay has passed (also done lazily by each call). */
    /** The path of a node (or of a retired one, as it was), or {@code null} if the id is unknown. */
    public synchronized String pathOf(long nodeId) {
        Node n = byId.get(nodeId);
        return n == null ? null : n.path();
    }

    /**
     * Calls {@code visitor} with the path and blocks of every live File and KeyValue at or below
     * {@code pathText}, under the namespace lock (the visitor must be quick and must not call back).
     *
     * @return the number of nodes visited
     */
    public synchronized long forEachDataNode(String pathText,
                                             java.util.function.BiConsumer<String, List<AllocatedBlock>> visitor) {
        Node top = resolve(PathName.parse(pathText));
        long visited = 0;
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Node x = todo.pop();
            if (x.type == NodeType.FILE || x.type == NodeType.KEYVALUE) {
                visitor.accept(x.path(), java.util.Collections.unmodifiableList(x.blocks));
                visited++;
            }
            x.children.values().forEach(todo::push);
        }
        return visited;
    }

    /**
     * Makes sure the record of the next child of {@code container} will have a block, before a
     * change that cannot be undone cheaply (a KeyValue's first commit) relies on it. A region
     * shortage is thrown here, with nothing changed yet.
     */
    private void reserveRecordBlock(Node container) {
        if (container.slots == null) {
            return;
        }
        long blockIndex = (long) container.slots.peek() * DirectoryRecord.SIZE / blockSize;
        while (container.blocks.size() <= blockIndex) {
            AllocatedBlock b = allocator.allocate(storageClassOf(container), locationOf(container));
            container.blocks.add(b);
            log.block(container.id, container.blocks.size() - 1, b);
        }
    }

    public synchronized void releaseDue() {
        releaseDueLocked();
        allocator.releaseDue();
    }

    private void releaseDueLocked() {
        long now = clock.getAsLong();
        while (!delayed.isEmpty() && delayed.peekFirst().readyAt() <= now) {
            delayed.removeFirst().action().run();
        }
    }

    private void later(Runnable action) {
        delayed.addLast(new Delayed(clock.getAsLong() + reuseDelayMillis, action));
    }

    // ------------------------------------------------------------------ helpers

    private Node resolve(PathName path) {
        Node cur = root;
        for (int i = 0; i < path.depth(); i++) {
            if (!cur.type.isContainer()) {
                throw new CreelException(ErrorCode.NOT_A_CONTAINER, path + ": " + cur.path() + " is a "
                        + cur.type.displayName() + ", which holds no children");
            }
            Node next = cur.children.get(path.component(i));
            if (next == null) {
                String missing = cur.path().equals("/") ? "/" + path.component(i) : cur.path() + "/" + path.component(i);
                throw new CreelException(ErrorCode.NOT_FOUND, missing.equals(path.toString())
                        ? path + ": no such node" : path + ": " + missing + " does not exist");
            }
            cur = next;
        }
        return cur;
    }

    /** The parent a node of {@code type} at {@code path} goes in: it must exist and accept the type. */
    private Node resolveParent(PathName path, NodeType type) {
        PathName parentPath = path.parent();
        Node parent;
        try {
            parent = resolve(parentPath);
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                throw new CreelException(ErrorCode.NOT_FOUND, path + ": parent " + parentPath + " does not exist");
            }
            throw e;
        }
        if (!parent.type.mayContain(type)) {
            throw new CreelException(ErrorCode.INVALID_PARENT, path + ": " + NodeType.containmentRule(type)
                    + " (" + parentPath + " is a " + parent.type.displayName() + ")");
        }
        return parent;
    }

    private String storageClassOf(Node n) {
        for (Node x = n; x != null; x = x.parent) {
            if (!x.storageClass.isEmpty()) {
                return x.storageClass;
            }
        }
        return allocator.defaultClass();
    }

    private String locationOf(Node n) {
        for (Node x = n; x != null; x = x.parent) {
            if (!x.locationClass.isEmpty()) {
                return x.locationClass;
            }
        }
        return "";
    }

    /** Logs a new node with its first block (if it has one). */
    private void logCreated(Node n) {
        log.created(n.id, n.type, n.name, n.parent.id, n.storageClass, n.locationClass, n.enumerable,
                n.state == Node.State.PENDING, n.slot, n.modifiedMillis);
        for (int i = 0; i < n.blocks.size(); i++) {
            log.block(n.id, i, n.blocks.get(i));
        }
    }

    private static BlockLocation firstBlock(Node n) {
        return n.blocks.isEmpty() ? null : n.blocks.get(0).at(n.id, 0);
    }

    private void grantLease(Node n, Object owner) {
        long lease;
        do {
            lease = ThreadLocalRandom.current().nextLong();
        } while (lease == 0);
        n.lease = lease;
        n.leaseOwner = owner;
        leasesByOwner.computeIfAbsent(owner, o -> new HashSet<>()).add(n);
    }

    private void releaseLease(Node n) {
        if (n.leaseOwner != null) {
            Set<Node> held = leasesByOwner.get(n.leaseOwner);
            if (held != null) {
                held.remove(n);
                if (held.isEmpty()) {
                    leasesByOwner.remove(n.leaseOwner);
                }
            }
        }
        n.lease = 0;
        n.leaseOwner = null;
    }

    /**
     * Frees blocks beyond the committed length. A length never shrinks, so these blocks were never
     * readable: no reader can hold their locations, and they need no reuse delay.
     */
    private void trim(Node n) {
        long keep = (n.length + blockSize - 1) / blockSize;
        if (n.blocks.size() > keep) {
            List<AllocatedBlock> beyond = n.blocks.subList((int) keep, n.blocks.size());
            allocator.freeUnpublished(new ArrayList<>(beyond));
            beyond.clear();
            log.trimmed(n.id, (int) keep);
        }
    }

    /** Takes the node out of its parent's children (if it is there). */
    private void detach(Node n) {
        if (n.parent != null && n.parent.children.get(n.name) == n) {
            n.parent.children.remove(n.name);
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
                liveCount--;
            }
            x.state = Node.State.RETIRED;
            if (x.lease != 0) {
                releaseLease(x);
            }
            allocator.retire(x.blocks);
            x.children.values().forEach(todo::push);
            x.pendingVersions.forEach(todo::push);
            long id = x.id;
            later(() -> byId.remove(id));
        }
    }

    /** Gives {@code child} a record slot in {@code container} and writes its record. */
    private CompletableFuture<Void> addRecord(Node container, Node child) {
        if (container.slots == null) {
            return CompletableFuture.completedFuture(null);
        }
        int slot = container.slots.take();
        long blockIndex = (long) slot * DirectoryRecord.SIZE / blockSize;
        try {
            while (container.blocks.size() <= blockIndex) {
                AllocatedBlock b = allocator.allocate(storageClassOf(container), locationOf(container));
                container.blocks.add(b);
                log.block(container.id, container.blocks.size() - 1, b);
            }
        } catch (io.creel.namenode.allocation.RegionShortage e) {
            container.slots.untake(slot);
            throw e; // the caller asks for a region and tries again
        } catch (CreelException e) {
            container.slots.untake(slot);
            throw new CreelException(e.code(), child.path() + ": no block for the directory record in "
                    + container.path() + ": " + e.getMessage(), e);
        }
        child.slot = slot;
        return writeSlot(container, slot, new DirectoryRecord(child.type, child.id, child.name).toBuffer());
    }

    /** Clears the child's record and frees its slot (reusable after the delay). */
    private CompletableFuture<Void> freeSlot(Node container, Node child) {
        int slot = child.slot;
        child.slot = -1;
        if (container == null || container.slots == null || slot < 0) {
            return CompletableFuture.completedFuture(null);
        }
        return clearSlot(container, slot);
    }

    private CompletableFuture<Void> clearSlot(Node container, int slot) {
        container.slots.free(slot);
        later(() -> container.slots.release(slot));
        return writeSlot(container, slot, DirectoryRecord.cleared());
    }

    /** Writes one record, after any earlier write to the same slot has finished. */
    private CompletableFuture<Void> writeSlot(Node container, int slot, ByteBuffer record) {
        long pos = (long) slot * DirectoryRecord.SIZE;
        int index = (int) (pos / blockSize);
        int offset = (int) (pos % blockSize);
        BlockLocation where = container.blocks.get(index).at(container.id, index);
        SlotKey key = new SlotKey(container.id, slot);
        CompletableFuture<Void> previous = lastWrite.get(key);
        CompletableFuture<Void> next = previous == null ? issue(where, offset, record)
                : previous.handle((v, e) -> null).thenCompose(x -> issue(where, offset, record));
        lastWrite.put(key, next);
        next.whenComplete((v, e) -> lastWrite.remove(key, next));
        return next;
    }

    private CompletableFuture<Void> issue(BlockLocation where, int offset, ByteBuffer record) {
        try {
            return records.write(where, offset, record);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static CreelException recordFailure(String path, Throwable err) {
        CreelException cause = CreelException.unwrap(err);
        return new CreelException(cause.code(), path + ": its directory record could not be written, so the "
                + "change was undone: " + cause.getMessage(), cause);
    }
}
