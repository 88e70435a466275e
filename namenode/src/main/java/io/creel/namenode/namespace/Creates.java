package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.allocation.BlockAllocator;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Creating a node: the rules every create shares (the root exists, the parent must be a container
 * that may hold the type, a storage class must exist, only a KeyValue comes with its value) and the
 * File's and containers' own (a File's first create wins and takes its first block and a lease; a
 * Table may be non-enumerable). A KeyValue create goes to {@link KeyValueVersions}; an expiring
 * node's rules are {@link Expiries}'. Called under the namespace lock.
 */
final class Creates {
    private final Namespace namespace;
    private final NodeTable nodes;
    private final Leases leases;
    private final BlockMap blocks;
    private final KeyValueVersions versions;
    private final Retirement retirement;
    private final DirectoryRecords records;
    private final BlockAllocator allocator;
    private final ReuseQueue reuse;
    private final LongSupplier clock;
    private final Expiries expiries;

    Creates(Namespace namespace, NodeTable nodes, Leases leases, BlockMap blocks, KeyValueVersions versions,
            Retirement retirement, DirectoryRecords records, BlockAllocator allocator, ReuseQueue reuse,
            LongSupplier clock, Expiries expiries) {
        this.expiries = expiries;
        this.namespace = namespace;
        this.nodes = nodes;
        this.leases = leases;
        this.blocks = blocks;
        this.versions = versions;
        this.retirement = retirement;
        this.records = records;
        this.allocator = allocator;
        this.reuse = reuse;
        this.clock = clock;
    }

    /** See {@link Namespace#create(CreateRequest, Object, RequestIdentity)}. */
    CompletableFuture<OpenReply> create(CreateRequest req, Object owner, RequestIdentity request) {
        reuse.runDue();
        Utf8Path path = Utf8Path.parse(req.path());
        if (path.isRoot()) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "/: the root directory always exists");
        }
        if (req.value() != null && req.type() != NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": only a KeyValue is created with its value; "
                    + "write a " + req.type().displayName() + "'s data after creating it");
        }
        if (req.ordered() && req.type() != NodeType.TABLE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": only a Table can be created ordered (it "
                    + "keeps its keys in order to scan them), not a " + req.type().displayName());
        }
        allocator.checkClass(req.storageClass(), req.path());
        expiries.checkCreate(req, path, request);
        if (req.type() == NodeType.FILE || req.type() == NodeType.KEYVALUE) {
            // Before anything changes: a create run again after a region grant may outlive its connection.
            leases.checkOwner(owner, path);
        }
        Container parent = nodes.resolveParent(path, req.type());
        byte[] name = path.name();
        long now = clock.getAsLong();
        Placement placement = nodes.placement(req.storageClass(), req.locationClass(), req.replication());
        if (req.type() == NodeType.KEYVALUE) {
            DataNode v = new DataNode(nodes.nextId(), NodeType.KEYVALUE, name, parent, placement, now,
                    Node.State.PENDING);
            return versions.create(v, req.value(), req.sizeHint(), owner, request);
        }
        Node existing = parent.child(name);
        if (existing != null) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, path + " already exists (a "
                    + existing.type.displayName() + ")" + (req.type() == NodeType.FILE ? "; a File's first create wins" : ""));
        }
        Node n;
        if (req.type() == NodeType.FILE) {
            DataNode f = new DataNode(nodes.nextId(), NodeType.FILE, name, parent, placement, now, Node.State.LIVE);
            if (!req.onDemand()) {
                // The create's reply brings it: a small write needs no MAP.
                f.addBlock(blocks.allocateFirst(f, req.sizeHint()));
            }
            n = f;
        } else {
            boolean enumerable = req.type() != NodeType.TABLE || req.enumerable();
            Container c = new Container(nodes.nextId(), req.type(), name, parent, placement, enumerable, now,
                    Node.State.LIVE);
            if (req.ordered()) {
                c.keepOrder();
            }
            n = c;
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
            written = namespace.addRecord(parent, n);
        } catch (CreelException e) {
            // Nobody ever saw this node: its first block goes back at once, not through the reuse
            // delay (a shortage is retried, and each try would otherwise leave a block pending).
            allocator.freeUnpublished(n.truncateBlocks(0));
            retirement.detach(n);
            retirement.retire(n);
            throw e;
        }
        namespace.logCreated(n);
        if (n instanceof Container c && c.ordered()) {
            namespace.log().ordered(n.id);
        }
        expiries.created(n, req.expiry(), request);
        OpenReply reply = namespace.reply(n);
        namespace.expect(reply);
        return written.handle((v, err) -> {
            if (err == null) {
                return reply;
            }
            synchronized (namespace) {
                if (n.state == Node.State.LIVE) {
                    records.free(n.parent, n);
                    retirement.detach(n);
                    retirement.retire(n);
                    namespace.log().removed(n.id);
                    namespace.withdraw(request);
                }
            }
            throw DirectoryRecords.failure(path.toString(), err);
        });
    }
}
