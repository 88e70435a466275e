package io.creel.client;

import io.creel.client.admin.ClusterAdmin;
import io.creel.client.block.BlockIo;
import io.creel.client.block.BlockLocationCache;
import io.creel.client.block.NodeRef;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.BlockLayout;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.Wire;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.transport.BlockLocator;
import io.creel.storage.transport.BlockTransfers;
import io.creel.storage.transport.TransportSelector;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The entry point of the Java API: namespace calls routed to the namenode owning each path, and
 * handles ({@link CreelNode}) that move data directly to and from storage servers.
 *
 * <p>Every call is asynchronous; a failed future carries a {@link CreelException} whose code says
 * what went wrong. Connections are opened on first use and shared (one pipelined connection per
 * namenode and per storage server).
 *
 * <pre>{@code
 * try (CreelClient c = CreelClient.connect(conf)) {
 *     CreelNode f = c.create("/jobs/out", NodeType.FILE).join();
 *     f.writer().write(ByteBuffer.wrap(bytes)).join();
 *     f.writer().close().join();
 * }
 * }</pre>
 */
public final class CreelClient implements AutoCloseable {
    private final CreelConf conf;
    private final EventLoops loops;
    private final RpcConnections connections;
    private final NamenodeRouter router;
    private final BlockTransfers transfers;
    private final BlockIo blockIo;
    private final ContainerListing listing;
    private final TableScans scans;
    private final ClusterAdmin admin;
    private final SessionHeartbeats heartbeats;

    private CreelClient(CreelConf conf) {
        this.conf = conf;
        this.loops = EventLoops.create(conf, "creel-client");
        this.connections = new RpcConnections(loops, conf);
        this.router = new NamenodeRouter(conf.get(ConfKeys.NAMENODE_ADDRESS), connections,
                new NamenodeRouter.Retry(conf.get(ClientKeys.RETRY_ATTEMPTS), conf.get(ClientKeys.RETRY_DEADLINE)),
                loops.group());
        this.transfers = new BlockTransfers(new TransportSelector(new TransportContext(conf, connections)));
        this.blockIo = new BlockIo(router, new BlockLocationCache(conf.get(ClientKeys.BLOCK_CACHE_SIZE)),
                transfers, conf.get(ConfKeys.BLOCK_SIZE));
        this.listing = new ContainerListing(this, router, blockIo);
        this.scans = new TableScans(this, router);
        this.admin = new ClusterAdmin(router);
        this.heartbeats = new SessionHeartbeats(router, loops.group(), conf.get(ClientKeys.SESSION_HEARTBEAT));
    }

    /** A client of the cluster named by {@code creel.namenode.address}; does not touch the network yet. */
    public static CreelClient connect(CreelConf conf) {
        return new CreelClient(conf);
    }

    public CreelConf conf() {
        return conf;
    }

    /** Creates a node with default options (inherited storage class, enumerable). */
    public CompletableFuture<CreelNode> create(String path, NodeType type) {
        return create(path, type, CreateOptions.defaults());
    }

    /**
     * Creates a node. A File or KeyValue comes back open for writing (it holds the lease and its
     * first block); a KeyValue's value becomes visible when its writer closes. A node created with an
     * expiry ({@link CreateOptions#withExpiry}) is owned by this client, which heartbeats its
     * namenode from then on.
     */
    public CompletableFuture<CreelNode> create(String path, NodeType type, CreateOptions options) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            if (p.isRoot()) {
                throw new CreelException(ErrorCode.ALREADY_EXISTS, "/: the root directory always exists");
            }
            checkExpiry(p.toString(), options.expiry());
            int partition = router.partitionOf(p);
            int copies = options.replication() != 0 || type != NodeType.FILE && type != NodeType.KEYVALUE
                    ? options.replication() : conf.get(ClientKeys.REPLICATION);
            CreateRequest req = new CreateRequest(p.toString(), type, options.storageClass(), options.locationClass(),
                    options.enumerable(), null, copies, options.expiry(), options.ordered(), options.onDemand(),
                    options.sizeHint());
            if (options.expiry().expires()) {
                // Before the create: a beat must not wait for the reply, or a slow create could eat the grace.
                heartbeats.keepAlive(partition);
            }
            return router.create(partition, req).thenApply(r -> node(p.toString(), partition, r));
        });
    }

    /** A time to live this client could not renew in time (two heartbeats) would expire under a live owner. */
    private void checkExpiry(String path, Expiry expiry) {
        if (expiry.expires() && !expiry.isSession() && expiry.graceMillis() < 2 * heartbeats.intervalMillis()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": a time to live of "
                    + expiry.graceMillis() + " ms is shorter than two of this client's heartbeats "
                    + "(creel.client.session.heartbeat = " + heartbeats.intervalMillis() + " ms): it could expire "
                    + "while this client lives");
        }
    }

    /**
     * This client's session id (32 hex digits): the owner {@code fs stat} shows for the expiring
     * nodes it creates, and what another client names to {@link #handOver} nodes to it. Asking for
     * it starts this client's heartbeats to every namenode, since nodes may be handed to it on any.
     */
    public String sessionId() {
        heartbeats.keepAliveEverywhere();
        return router.sessionId();
    }

    /**
     * Hands the expiring node at {@code path}, which this client owns, to session {@code sessionId}
     * (another client's {@link #sessionId()}), expiring as {@code expiry} says from now on: its new
     * owner's heartbeats keep it, this client's no longer do. With {@link Expiry#NONE} the node no
     * longer expires ({@link #makePermanent}). Only the owner may hand a node over (else
     * INVALID_ARGUMENT naming the owner); completes with the node as it is afterwards.
     */
    public CompletableFuture<NodeInfo> handOver(String path, String sessionId, Expiry expiry) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            if (expiry.expires()) {
                checkExpiry(p.toString(), expiry);
                try {
                    io.creel.common.protocol.RequestIdentity.parseClient(sessionId);
                } catch (IllegalArgumentException e) {
                    throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": cannot hand it over: "
                            + e.getMessage(), e);
                }
            }
            return router.handOver(router.partitionOf(p), new io.creel.common.protocol.HandOverRequest(p.toString(),
                    expiry.expires() ? sessionId : "", expiry));
        });
    }

    /** Makes the expiring node at {@code path}, which this client owns, permanent: it no longer expires. */
    public CompletableFuture<NodeInfo> makePermanent(String path) {
        return handOver(path, "", Expiry.NONE);
    }

    /** Looks a node up (no lease). */
    public CompletableFuture<CreelNode> lookup(String path) {
        return open(path, false);
    }

    /** Looks a File up and takes its write lease, to append to it (LEASE_CONFLICT if another writer has it). */
    public CompletableFuture<CreelNode> openForAppend(String path) {
        return open(path, true);
    }

    private CompletableFuture<CreelNode> open(String path, boolean forAppend) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            int partition = router.partitionOf(p);
            return router.lookup(partition, p.toString(), forAppend).thenApply(r -> node(p.toString(), partition, r));
        });
    }

    /** A handle for a listed entry, without another lookup (no lease). */
    public CreelNode open(DirectoryEntry entry) {
        int partition = router.partitionOf(PathName.parse(entry.path()));
        return new CreelNode(this, entry.path(), entry.info(), partition, 0, false, entry.data(), 0);
    }

    /** A handle for the node an open reply describes; remembers the first block's location it brought. */
    CreelNode node(String path, int partition, OpenReply r) {
        NodeRef ref = new NodeRef(partition, r.node().id(), path, r.node().firstBlockSize());
        BlockLayout layout = blockIo.layout(ref);
        long length = r.node().length();
        if (r.lease() != 0 && layout.offsetInBlock(length) != 0) {
            // An append starts in the node's last block and writes to every copy the namenode has of it
            // now: a location cached earlier may miss a copy the repair has added since (which would
            // then miss the appended bytes) or name one on a server that is gone.
            blockIo.cache().forget(ref.block(layout.blockOf(length)));
        }
        if (r.firstBlock() != null) {
            blockIo.cache().put(r.firstBlock(), partition);
        }
        return new CreelNode(this, path, r.node(), partition, r.lease(), r.firstBlock() != null, r.data(),
                r.inlineLimit());
    }

    /** Removes a node; a container with children needs {@code recursive}. Returns the removed node. */
    public CompletableFuture<NodeInfo> delete(String path, boolean recursive) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            if (p.isRoot()) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "/: the root directory cannot be removed");
            }
            return router.remove(router.partitionOf(p), p.toString(), recursive);
        });
    }

    /** Moves (renames) a node atomically; the target must not exist and must be in the same partition. */
    public CompletableFuture<CreelNode> move(String source, String target) {
        return Futures.guard(() -> {
            PathName s = PathName.parse(source);
            PathName t = PathName.parse(target);
            if (s.isRoot() || t.isRoot()) {
                throw new CreelException(ErrorCode.UNSUPPORTED, "the root directory cannot be moved or replaced");
            }
            int ps = router.partitionOf(s);
            int pt = router.partitionOf(t);
            if (ps != pt) {
                throw new CreelException(ErrorCode.UNSUPPORTED, source + " -> " + target + ": a move between "
                        + "namenode partitions is not supported (top-level names '" + s.topLevel() + "' and '"
                        + t.topLevel() + "' belong to different namenodes)");
            }
            return router.move(ps, s.toString(), t.toString()).thenApply(r -> node(t.toString(), ps, r));
        });
    }

    /**
     * Lists a container: reads its directory records from its data, then looks up every listed
     * child (all lookups in flight at once) and leaves out children that no longer exist. The root
     * merges the listings of all namenode partitions.
     */
    public CompletableFuture<List<DirectoryEntry>> list(String path) {
        return listing.list(path);
    }

    /**
     * Up to {@code limit} keys of the ordered Table at {@code tablePath} from {@code startKey} on
     * (inclusive; {@code ""} for the first key), in key order: UTF-8 bytes compared unsigned, which
     * is Unicode code point order. Each entry is the key's committed version, with its value when
     * the namenode keeps it inline ({@link DirectoryEntry#data()}; {@link #open(DirectoryEntry)}
     * reads the others). One SCAN request per {@value io.creel.common.protocol.ScanRequest#MAX_LIMIT}
     * keys (fewer when inline values fill a reply), each continuing after the last key of the one
     * before; keys created or removed during a longer scan may or may not be in it.
     *
     * <p>Only a Table created ordered ({@link CreateOptions#withOrdered}) can be scanned; any other
     * fails INVALID_ARGUMENT naming it; a {@code limit} below 1 fails INVALID_ARGUMENT.
     */
    public CompletableFuture<List<DirectoryEntry>> scan(String tablePath, String startKey, int limit) {
        return scans.scan(tablePath, startKey, limit);
    }

    /**
     * {@link #scan} with every value: inline ones from the scan's replies, the others read from
     * their blocks all at once. A key replaced after the scan saw it gives its newer value; one
     * removed meanwhile is left out.
     */
    public CompletableFuture<List<TableEntry>> scanValues(String tablePath, String startKey, int limit) {
        return scans.scanValues(tablePath, startKey, limit);
    }

    /**
     * Where the blocks holding bytes {@code [start, start + len)} of a File or KeyValue live, clipped
     * to the node's readable length (so nothing is allocated): one location per block, in order.
     * Hadoop's {@code getFileBlockLocations} and schedulers placing work near data use it. A node
     * whose bytes the namenode keeps inline ({@link CreelNode#isInline()}) has no blocks: none are named.
     */
    public CompletableFuture<List<io.creel.common.protocol.BlockLocation>> blockLocations(CreelNode node, long start,
                                                                                       long len) {
        return Futures.guard(() -> {
            if (node.type() != NodeType.FILE && node.type() != NodeType.KEYVALUE) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, node.path() + " is a "
                        + node.type().displayName() + "; only Files and KeyValues have blocks of data");
            }
            if (start < 0 || len < 0) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, node.path() + ": negative range start "
                        + start + " length " + len);
            }
            long end = Math.min(node.length(), start + len);
            List<CompletableFuture<io.creel.common.protocol.BlockLocation>> all = new ArrayList<>();
            if (start < end && !node.isInline()) {
                BlockLayout layout = blockIo.layout(node.ref());
                long blocks = layout.blocksFor(node.length());
                for (long i = layout.blockOf(start); i <= layout.blockOf(end - 1); i++) {
                    all.add(blockIo.locateRun(node.ref(), i, blocks)); // the first asks for the next ones too
                }
            }
            return Futures.clean(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .thenApply(v -> all.stream().map(CompletableFuture::join).toList()));
        });
    }

    /** Bytes per block of this client's cluster ({@code creel.block.size}). */
    public long blockSize() {
        return blockIo.blockSize();
    }

    /** Each namenode's view of the cluster, in partition order. */
    public CompletableFuture<List<StatusReply>> status() {
        return admin.status();
    }

    /**
     * Starts draining the storage server at {@code address} (host:port) on every namenode: no new
     * blocks go there, and it leaves the cluster once none of its blocks is in use. Completes with
     * each namenode's view of the server.
     */
    public CompletableFuture<List<io.creel.common.protocol.ServerStatus>> decommission(String address) {
        return admin.decommission(address);
    }

    /**
     * Changes the node at {@code path}'s owner (unless "", administrators only), group (unless "")
     * and mode (unless {@link io.creel.common.protocol.SetAccessRequest#KEEP}); completes with the
     * node afterwards. The root is changed on every namenode. Fails PERMISSION_DENIED for anyone but
     * the owner or an administrator, UNSUPPORTED where the namenode enforces no permissions.
     */
    public CompletableFuture<NodeInfo> setAccess(String path, String owner, String group, int mode) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            io.creel.common.protocol.SetAccessRequest r = new io.creel.common.protocol.SetAccessRequest(p.toString(),
                    owner, group, mode);
            if (!p.isRoot()) {
                return router.setAccess(router.partitionOf(p), r);
            }
            return router.everyPartition(i -> router.setAccess(i, r)).thenApply(all -> all.get(0));
        });
    }

    /** The operator's calls about identities: issuing, revoking and listing credentials. */
    public ClusterAdmin admin() {
        return admin;
    }

    /**
     * Files and KeyValues at or below {@code path} that have blocks on storage servers that are dead
     * or gone, and containers whose directory records were on such a server; for "/" every partition
     * is checked.
     */
    public CompletableFuture<io.creel.common.protocol.FsckReply> fsck(String path) {
        return admin.fsck(path);
    }

    /**
     * Sets {@code key} of the Table to {@code value}'s remaining bytes, visible atomically when this completes.
     *
     * <p>A value within the namenode's inline limit ({@code creel.namenode.inline.max}) travels with
     * the create, and the namenode keeps and commits it there: one request, no data transfer. A larger
     * one is created, written to a block and committed (two requests and a transfer). Until this
     * client has heard the limit from a namenode, it offers values up to the protocol's most; one the
     * namenode does not keep is then written the usual way.
     */
    public CompletableFuture<Void> putValue(String tablePath, String key, ByteBuffer value) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(tablePath).child(key);
            String path = p.toString();
            ByteBuffer src = value.duplicate();
            int partition = router.partitionOf(p);
            int limit = router.inlineLimit(partition);
            if (src.remaining() > (limit < 0 ? Wire.MAX_INLINE_BYTES : limit)) {
                return create(path, NodeType.KEYVALUE, CreateOptions.defaults().withSizeHint(src.remaining()))
                        .thenCompose(node -> writeValue(node, src));
            }
            byte[] bytes = new byte[src.remaining()];
            src.duplicate().get(bytes);
            CreateRequest req = new CreateRequest(path, NodeType.KEYVALUE, "", "", true, bytes,
                    conf.get(ClientKeys.REPLICATION));
            return router.create(partition, req).thenCompose(r -> {
                if (r.lease() == 0) {
                    return CompletableFuture.<Void>completedFuture(null); // kept inline and committed
                }
                return writeValue(node(path, partition, r), src);
            });
        });
    }

    /** Writes a whole value through a new version's writer and commits it. */
    private static CompletableFuture<Void> writeValue(CreelNode node, ByteBuffer src) {
        DirectWriter w = node.writer();
        w.write(src); // a failed write fails the close, which reports it
        return w.close().thenApply(info -> (Void) null);
    }

    /**
     * The value of {@code key} in the Table, as a buffer ready to read (position 0).
     *
     * <p>A repeated get of a one-block value costs one round trip, not two: the client remembers
     * where the value it last saw lives and reads it from the storage server <em>while</em> it asks
     * the namenode which value is current. A KeyValue version never changes once committed, so if the
     * namenode names the same version the bytes read are that version's, current at the lookup (a
     * reused block would have failed the read with STALE_BLOCK); if it names another version, the
     * speculative bytes are dropped and the new version is read. So a get never serves a stale value.
     */
    public CompletableFuture<ByteBuffer> getValue(String tablePath, String key) {
        return Futures.guard(() -> getValue(PathName.parse(tablePath).child(key).toString(), ValueDestination.NEW,
                GET_ATTEMPTS)).thenApply(ByteBuffer::flip);
    }

    /**
     * Reads the value of {@code key} in the Table into {@code dst}, from its position, and completes
     * with the value's length; {@code dst}'s position has then advanced by it. The same guarantees as
     * {@link #getValue(String, String)}, without a new buffer per get: for large values that buffer's
     * allocation (zeroing fresh memory page by page) costs as much as the transfer. {@code dst} must
     * not be used until the future completes.
     *
     * @throws CreelException (in the future) LIMIT_EXCEEDED, naming both lengths, when the value is
     *     longer than {@code dst.remaining()}; nothing is read into {@code dst} then
     */
    public CompletableFuture<Integer> getValue(String tablePath, String key, ByteBuffer dst) {
        String path = PathName.parse(tablePath).child(key).toString();
        ValueDestination into = ValueDestination.into(path, dst);
        return Futures.guard(() -> getValue(path, into, GET_ATTEMPTS)).thenApply(filled -> {
            int n = filled.position() - dst.position();
            dst.position(filled.position());
            return n;
        });
    }

    /**
     * Gets that find the version they looked up replaced (or removed) before its bytes were read
     * — its node gone, or its block reused: NOT_FOUND or STALE_BLOCK from the read — look the key
     * up again, this many times in all. The key existed throughout, so its current value is the
     * answer, not the error; a key that is really gone fails the next lookup.
     */
    private static final int GET_ATTEMPTS = 3;

    /** Completes with the buffer {@code into} gave for the value, filled: its position is at the value's end. */
    private CompletableFuture<ByteBuffer> getValue(String path, ValueDestination into, int attemptsLeft) {
        SeenValue seen = seenValues.get(path);
        CompletableFuture<ByteBuffer> attempt = seen != null && into.fits(seen.length())
                ? speculativeGet(path, seen, into) : plainGet(path, into);
        return attempt.handle((value, t) -> {
            if (t == null) {
                return CompletableFuture.completedFuture(value);
            }
            CreelException e = CreelException.unwrap(t);
            if (e instanceof VersionGone gone) {
                seenValues.remove(path);
                return attemptsLeft > 1 ? getValue(path, into, attemptsLeft - 1)
                        : Futures.<ByteBuffer>failed(gone.getCause());
            }
            return Futures.<ByteBuffer>failed(e);
        }).thenCompose(f -> f);
    }

    /** The version a get looked up went away before its bytes were read (carries the read's error). */
    private static final class VersionGone extends CreelException {
        private static final long serialVersionUID = 1L;

        VersionGone(CreelException cause) {
            super(cause.code(), cause.getMessage(), cause);
        }
    }

    /** Where a one-block value was last seen: its version's node id, length and block. */
    private record SeenValue(long nodeId, long length, io.creel.common.protocol.BlockLocation block) {
    }

    /** Bounded memory of {@link SeenValue}s, least recently used out first. */
    private final java.util.Map<String, SeenValue> seenValues = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(256, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(java.util.Map.Entry<String, SeenValue> eldest) {
                    return size() > SEEN_VALUES;
                }
            });
    private static final int SEEN_VALUES = 4096;

    private CompletableFuture<ByteBuffer> speculativeGet(String path, SeenValue seen, ValueDestination into) {
        int partition = router.partitionOf(PathName.parse(path));
        ByteBuffer dst = into.slot(seen.length());
        CompletableFuture<Void> read = transfers.read(path, 0, BlockLocator.at(seen.block()), 0, dst.duplicate());
        return router.lookup(partition, path, false).thenCompose(open -> {
            NodeInfo n = open.node();
            if (n.id() == seen.nodeId() && n.length() == seen.length()) {
                return read.handle((v, t) -> {
                    if (t == null) {
                        return CompletableFuture.completedFuture(dst.position(dst.limit()));
                    }
                    seenValues.remove(path, seen);
                    return readValue(path, node(path, partition, open), into);
                }).thenCompose(f -> f);
            }
            seenValues.remove(path, seen);
            // Another version is current: the speculative bytes are not used. With the caller's buffer,
            // the next read must not start before this one has stopped writing into it.
            return read.handle((v, t) -> null).thenCompose(v -> readValue(path, node(path, partition, open), into));
        });
    }

    private CompletableFuture<ByteBuffer> plainGet(String path, ValueDestination into) {
        return lookup(path).thenCompose(node -> readValue(path, node, into));
    }

    /** Reads the value of the version {@code node} names; its going away under the read fails with {@link VersionGone}. */
    private CompletableFuture<ByteBuffer> readValue(String path, CreelNode node, ValueDestination into) {
        return Futures.guard(() -> readVersion(path, node, into)).exceptionallyCompose(t -> {
            CreelException e = CreelException.unwrap(t);
            boolean gone = e.code() == ErrorCode.NOT_FOUND || e.code() == ErrorCode.STALE_BLOCK;
            return Futures.failed(gone ? new VersionGone(e) : e);
        });
    }

    private CompletableFuture<ByteBuffer> readVersion(String path, CreelNode node, ValueDestination into) {
        if (node.type() != NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + " is a " + node.type().displayName()
                    + ", not a KeyValue");
        }
        if (node.length() > Integer.MAX_VALUE - 8) {
            throw new CreelException(ErrorCode.LIMIT_EXCEEDED, path + ": a value of " + node.length()
                    + " bytes does not fit one buffer; read it with a reader");
        }
        if (node.isInline()) {
            return CompletableFuture.completedFuture(into.inline(node.inlineData()));
        }
        ByteBuffer dst = into.slot(node.length());
        return node.reader().read(dst).thenApply(n -> {
            io.creel.common.protocol.BlockLocation first = blockIo.cache().peek(node.ref().block(0));
            if (first != null && node.length() > 0 && node.length() <= blockIo.layout(node.ref()).size(0)) {
                seenValues.put(path, new SeenValue(node.info().id(), node.length(), first));
            }
            return dst;
        });
    }

    NamenodeRouter router() {
        return router;
    }

    BlockIo blockIo() {
        return blockIo;
    }

    /** The block-location cache (shared by all nodes of this client). */
    public io.creel.client.block.BlockLocationCache blockCache() {
        return blockIo.cache();
    }

    int bufferSize() {
        return conf.get(ClientKeys.BUFFER_SIZE);
    }

    int readAhead() {
        return conf.get(ClientKeys.READ_AHEAD);
    }

    int bagReadsInFlight() {
        return conf.get(ClientKeys.BAG_READS_IN_FLIGHT);
    }

    /** How long blocking helpers (java.io views, the CLI) wait for one step. */
    public Duration requestTimeout() {
        return conf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT);
    }

    /**
     * Closes connections, transports and event loops; outstanding calls fail with UNAVAILABLE. The
     * session heartbeats stop: expiring nodes this client owns go after their grace (remove them
     * first if they should go at once, or hand them over if they should stay).
     */
    @Override
    public void close() {
        heartbeats.close();
        transfers.close();
        connections.close();
        loops.close();
    }
}
