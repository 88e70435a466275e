package io.creel.client.fake;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.MapReply;
import io.creel.common.protocol.MapRequest;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.MoveRequest;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RemoveRequest;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcServer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small in-memory namenode for client tests, served over the real RPC framework. It keeps the
 * rules the client relies on (containment, first-create-wins, leases, KeyValue publish on close,
 * directory records written into the container's data, in-order block allocation) and counts and
 * optionally delays MAP requests.
 */
public final class FakeNamenode implements AutoCloseable {
    private final FakeStorage storage;
    private final RpcServer server;
    private final TreeMap<String, Node> paths = new TreeMap<>();
    private final Map<Long, Node> byId = new HashMap<>();
    private final AtomicLong ids = new AtomicLong(100);
    private final AtomicLong leases = new AtomicLong(7000);
    public final AtomicInteger maps = new AtomicInteger();
    /** LOCATE requests (the locations of a run of blocks at once). */
    public final AtomicInteger locates = new AtomicInteger();
    /** Blocks moved away from a server their writer could not reach. */
    public final AtomicInteger moves = new AtomicInteger();
    public final AtomicInteger mapsInFlight = new AtomicInteger();
    /** MAP or LOCATE requests that arrived while a block read was in flight at the storage. */
    public final AtomicInteger mapsDuringReads = new AtomicInteger();
    /** Block reads that started while a MAP was in flight here. */
    public final AtomicInteger readsDuringMaps = new AtomicInteger();
    public final List<String> createdPaths = new ArrayList<>();
    /** Creates that carried a value to keep inline (which this namenode never does). */
    public final AtomicInteger createsOfferingValues = new AtomicInteger();
    /** Paths whose writer gave its lease back without publishing (COMMIT ABANDON). */
    public final List<String> abandoned = new java.util.concurrent.CopyOnWriteArrayList<>();
    public volatile long mapDelayMillis;
    /** If set, MAP requests that move a block are answered only once it opens. */
    public volatile java.util.concurrent.CountDownLatch moveGate;
    /** MAP requests that move a block, received so far. */
    public final AtomicInteger moveRequests = new AtomicInteger();

    private static final class Node {
        long id;
        NodeType type;
        String path;
        long length;
        boolean enumerable = true;
        /** A Table created ordered: SCAN reads its keys (in String order, which is byte order for ASCII keys). */
        boolean ordered;
        long lease;
        boolean visible = true;
        final List<long[]> blocks = new ArrayList<>();
        final Map<String, Integer> slots = new HashMap<>();
        Node replaces;
        /** How the node expires, as stat shows it; null if it does not. */
        io.creel.common.protocol.NodeExpiry expiry;
    }

    /** The session timeout this namenode reports (it never removes anything by itself). */
    public static final long SESSION_TIMEOUT_MILLIS = 30_000;
    /** Session heartbeats received. */
    public final AtomicInteger sessionBeats = new AtomicInteger();

    public FakeNamenode(EventLoops loops, CreelConf conf, FakeStorage storage) {
        this.storage = storage;
        this.storage.onReadStart = () -> {
            if (mapsInFlight.get() > 0) {
                readsDuringMaps.incrementAndGet();
            }
        };
        Node root = new Node();
        root.id = 1;
        root.type = NodeType.DIRECTORY;
        root.path = "/";
        paths.put("/", root);
        byId.put(root.id, root);
        this.server = RpcServer.start("fake-namenode", "127.0.0.1", 0, loops, conf.maxFrameSize(), this::handle);
    }

    public HostPort address() {
        return new HostPort("127.0.0.1", server.port());
    }

    public synchronized boolean exists(String path) {
        return paths.containsKey(path);
    }

    /**
     * Commits a new version of KeyValue {@code path} holding {@code value} (at most one block) at
     * once, as another client's put would; the old version's id stops resolving.
     */
    public synchronized void replaceValue(String path, byte[] value) {
        Node old = find(path);
        Node n = new Node();
        n.id = ids.incrementAndGet();
        n.type = NodeType.KEYVALUE;
        n.path = old.path;
        n.blocks.add(storage.allocate());
        storage.put(n.blocks.get(0)[0], n.blocks.get(0)[1], 0, ByteBuffer.wrap(value));
        n.length = value.length;
        byId.remove(old.id);
        byId.put(n.id, n);
        paths.put(n.path, n);
    }

    /** The storage block number of block {@code index} of a node's data (a container's records). */
    public synchronized long containerBlock(String path, int index) {
        return find(path).blocks.get(index)[0];
    }

    /** Removes a node but leaves its directory record in place (what a client may see in a race). */
    public synchronized void removeKeepingRecord(String path) {
        Node n = paths.remove(path);
        byId.remove(n.id);
    }

    private void handle(RpcCall call) {
        if (!(call.opcode() instanceof Opcode op)) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "fake namenode: " + call.opcode());
        }
        switch (op) {
            case CREATE -> {
                CreateRequest req = CreateRequest.decode(call.body());
                call.reply(sync(() -> create(req, call.identity())));
            }
            case SESSION_BEAT -> {
                sessionBeats.incrementAndGet();
                call.reply(new io.creel.common.protocol.SessionBeatReply(0, SESSION_TIMEOUT_MILLIS));
            }
            case SCAN -> call.reply(sync(() -> scan(io.creel.common.protocol.ScanRequest.decode(call.body()))));
            case LOOKUP -> call.reply(sync(() -> lookup(LookupRequest.decode(call.body()))));
            case REMOVE -> call.reply(sync(() -> remove(RemoveRequest.decode(call.body()))));
            case MOVE -> call.reply(sync(() -> move(MoveRequest.decode(call.body()))));
            case COMMIT -> call.reply(sync(() -> commit(CommitRequest.decode(call.body()))));
            case STATUS -> call.reply(new StatusReply(paths.size(), List.of("dram"), List.of(new ServerStatus(
                    storage.info(), "live", storage.usedBlocks(), storage.info().blockCount() - storage.usedBlocks(),
                    0, 5))));
            case MAP -> map(call, MapRequest.decode(call.body()));
            case LOCATE -> locate(call, io.creel.common.protocol.LocateRequest.decode(call.body()));
            case FSCK -> { // the fake's storage never dies: nothing is lost
                io.creel.common.protocol.FsckRequest.decode(call.body());
                call.reply(new io.creel.common.protocol.FsckReply(0, List.of()));
            }
            default -> throw new CreelException(ErrorCode.UNSUPPORTED, "fake namenode: " + call.opcode());
        }
    }

    private void locate(RpcCall call, io.creel.common.protocol.LocateRequest req) {
        locates.incrementAndGet();
        answerLocation(call, () -> {
            Node n = byId.get(req.nodeId());
            if (n == null) {
                throw new CreelException(ErrorCode.NOT_FOUND, "node " + req.nodeId() + " does not exist");
            }
            if (req.firstIndex() >= n.blocks.size()) {
                throw new CreelException(ErrorCode.NOT_FOUND, n.path + " has no block " + req.firstIndex());
            }
            List<BlockLocation> run = new ArrayList<>();
            for (long i = req.firstIndex(); i < Math.min(n.blocks.size(), req.firstIndex() + req.count()); i++) {
                run.add(location(n, (int) i));
            }
            return new io.creel.common.protocol.LocateReply(run);
        }, null);
    }

    private void map(RpcCall call, MapRequest req) {
        maps.incrementAndGet();
        answerLocation(call, () -> mapBlock(req), req);
    }

    /** Answers a MAP or LOCATE after the configured delay (a MAP that moves a block: once the gate opens). */
    private void answerLocation(RpcCall call, java.util.function.Supplier<Message> answerOf, MapRequest req) {
        mapsInFlight.incrementAndGet();
        if (storage.readsInFlight.get() > 0) {
            mapsDuringReads.incrementAndGet();
        }
        Runnable answer = () -> {
            try {
                call.reply(sync(answerOf));
            } catch (CreelException e) {
                call.fail(e);
            } finally {
                mapsInFlight.decrementAndGet();
            }
        };
        java.util.concurrent.CountDownLatch gate = moveGate;
        boolean move = req != null && req.unreachableTag() != 0;
        if (move) {
            moveRequests.incrementAndGet();
        }
        if (move && gate != null) {
            FakeStorage.TIMER.execute(() -> {
                try {
                    gate.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                answer.run();
            });
        } else if (mapDelayMillis > 0) {
            call.peer().schedule(answer, mapDelayMillis, TimeUnit.MILLISECONDS);
        } else {
            answer.run();
        }
    }

    private synchronized Message sync(java.util.function.Supplier<Message> op) {
        return op.get();
    }

    private Node find(String path) {
        Node n = paths.get(PathName.parse(path).toString());
        if (n == null) {
            throw new CreelException(ErrorCode.NOT_FOUND, path + ": no such node");
        }
        return n;
    }

    private NodeInfo info(Node n) {
        return new NodeInfo(n.id, n.type, n.length, "", "", n.enumerable, 0, n.lease != 0, 0, n.expiry);
    }

    private BlockLocation location(Node n, int index) {
        long[] b = n.blocks.get(index);
        return new BlockLocation(n.id, index, storage.info(), b[0], b[1]);
    }

    private Message create(CreateRequest req, io.creel.common.protocol.RequestIdentity caller) {
        PathName p = PathName.parse(req.path());
        Node parent = paths.get(p.parent().toString());
        if (parent == null) {
            throw new CreelException(ErrorCode.NOT_FOUND, p.parent() + ": no such node");
        }
        if (!parent.type.mayContain(req.type())) {
            throw new CreelException(ErrorCode.INVALID_PARENT, req.path() + ": " + NodeType.containmentRule(req.type()));
        }
        Node old = paths.get(p.toString());
        if (old != null && req.type() != NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, req.path() + " already exists");
        }
        Node n = new Node();
        n.id = ids.incrementAndGet();
        n.type = req.type();
        n.path = p.toString();
        n.enumerable = req.type() != NodeType.TABLE || req.enumerable();
        n.ordered = req.ordered();
        if (req.expiry().expires()) {
            n.expiry = new io.creel.common.protocol.NodeExpiry(caller.clientText(), req.expiry().isSession(),
                    req.expiry().isSession() ? SESSION_TIMEOUT_MILLIS : req.expiry().graceMillis(), 0);
        }
        byId.put(n.id, n);
        createdPaths.add(n.path);
        if (req.value() != null) {
            createsOfferingValues.incrementAndGet(); // this namenode keeps nothing inline: the writer writes it
        }
        long lease = 0;
        if (req.type() == NodeType.FILE || req.type() == NodeType.KEYVALUE) {
            lease = leases.incrementAndGet();
            n.lease = lease;
            n.blocks.add(storage.allocate());
        }
        if (req.type() == NodeType.KEYVALUE) {
            n.visible = false;
            n.replaces = old;
        } else {
            paths.put(n.path, n);
            addRecord(parent, n);
        }
        return new OpenReply(info(n), lease, n.blocks.isEmpty() ? null : location(n, 0));
    }

    private void addRecord(Node parent, Node child) {
        if (!parent.enumerable) {
            return;
        }
        int slot = 0;
        while (parent.slots.containsValue(slot)) {
            slot++;
        }
        parent.slots.put(PathName.parse(child.path).name(), slot);
        writeRecord(parent, slot, new DirectoryRecord(child.type, child.id, PathName.parse(child.path).name()).toBuffer());
        parent.length = Math.max(parent.length, (slot + 1L) * DirectoryRecord.SIZE);
    }

    private void clearRecord(Node parent, String name) {
        Integer slot = parent.slots.remove(name);
        if (slot != null) {
            writeRecord(parent, slot, DirectoryRecord.cleared());
        }
    }

    private void writeRecord(Node container, int slot, ByteBuffer record) {
        long at = (long) slot * DirectoryRecord.SIZE;
        int index = (int) (at / storage.blockSize());
        while (container.blocks.size() <= index) {
            container.blocks.add(storage.allocate());
        }
        long[] b = container.blocks.get(index);
        storage.put(b[0], b[1], (int) (at % storage.blockSize()), record);
    }

    private Message scan(io.creel.common.protocol.ScanRequest req) {
        Node t = find(req.path());
        if (t.type != NodeType.TABLE || !t.ordered) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, req.path() + " keeps no key order: create it ordered");
        }
        String prefix = t.path + "/";
        List<io.creel.common.protocol.ScanReply.Entry> out = new ArrayList<>();
        for (Node n : paths.tailMap(prefix + req.from(), !req.after()).values()) {
            if (!n.path.startsWith(prefix)) {
                break;
            }
            if (out.size() == req.limit()) {
                return new io.creel.common.protocol.ScanReply(out, true);
            }
            out.add(new io.creel.common.protocol.ScanReply.Entry(n.path.substring(prefix.length()), info(n), null));
        }
        return new io.creel.common.protocol.ScanReply(out, false);
    }

    private Message lookup(LookupRequest req) {
        Node n = find(req.path());
        long lease = 0;
        if (req.forAppend()) {
            if (n.type != NodeType.FILE) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, req.path() + " is not a File");
            }
            if (n.lease != 0) {
                throw new CreelException(ErrorCode.LEASE_CONFLICT, req.path() + " is being written by another writer");
            }
            lease = leases.incrementAndGet();
            n.lease = lease;
        }
        return new OpenReply(info(n), lease, n.blocks.isEmpty() ? null : location(n, 0));
    }

    private Message remove(RemoveRequest req) {
        PathName p = PathName.parse(req.path());
        Node n = find(req.path());
        String prefix = n.path + "/";
        boolean hasChildren = paths.keySet().stream().anyMatch(k -> k.startsWith(prefix));
        if (hasChildren && !req.recursive()) {
            throw new CreelException(ErrorCode.NOT_EMPTY, req.path() + " is not empty");
        }
        paths.keySet().removeIf(k -> k.equals(n.path) || k.startsWith(prefix));
        byId.remove(n.id);
        clearRecord(paths.get(p.parent().toString()), p.name());
        return new NodeReply(info(n));
    }

    private Message move(MoveRequest req) {
        PathName s = PathName.parse(req.source());
        PathName t = PathName.parse(req.target());
        Node n = find(req.source());
        if (paths.containsKey(t.toString())) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, req.target() + " already exists");
        }
        Node newParent = find(t.parent().toString());
        clearRecord(paths.get(s.parent().toString()), s.name());
        Map<String, Node> moved = new HashMap<>();
        String prefix = n.path + "/";
        paths.entrySet().removeIf(e -> {
            if (e.getKey().equals(n.path) || e.getKey().startsWith(prefix)) {
                String np = t + e.getKey().substring(n.path.length());
                e.getValue().path = np;
                moved.put(np, e.getValue());
                return true;
            }
            return false;
        });
        paths.putAll(moved);
        addRecord(newParent, n);
        return new OpenReply(info(n), 0, null);
    }

    private Message mapBlock(MapRequest req) {
        Node n = byId.get(req.nodeId());
        if (n == null) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + req.nodeId() + " does not exist");
        }
        if (req.unreachableTag() != 0) {
            return moveBlock(n, req);
        }
        if (req.blockIndex() < n.blocks.size()) {
            return new MapReply(location(n, (int) req.blockIndex()));
        }
        if (req.lease() == 0 || req.lease() != n.lease) {
            throw new CreelException(ErrorCode.NOT_FOUND, n.path + " has no block " + req.blockIndex());
        }
        if (req.blockIndex() != n.blocks.size()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path + ": block " + req.blockIndex()
                    + " allocated out of order (next is " + n.blocks.size() + ")");
        }
        n.blocks.add(storage.allocate());
        return new MapReply(location(n, (int) req.blockIndex()));
    }

    private Message moveBlock(Node n, MapRequest req) {
        if (req.lease() != n.lease || req.blockIndex() >= n.blocks.size()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path + ": bad move of block " + req.blockIndex());
        }
        int index = (int) req.blockIndex();
        if (n.blocks.get(index)[1] == req.unreachableTag()) {
            if ((long) index * storage.blockSize() < n.length) {
                throw new CreelException(ErrorCode.UNAVAILABLE, n.path + ": block " + index + " holds published bytes");
            }
            n.blocks.set(index, storage.allocate());
            moves.incrementAndGet();
        }
        return new MapReply(location(n, index));
    }

    private Message commit(CommitRequest req) {
        Node n = byId.get(req.nodeId());
        if (n == null || n.lease == 0 || n.lease != req.lease()) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, "commit without the lease of node " + req.nodeId());
        }
        if (req.kind() == CommitRequest.Kind.ABANDON) {
            n.lease = 0;
            abandoned.add(n.path);
            if (!n.visible) {
                byId.remove(n.id); // a dropped KeyValue version: the key keeps its old value
            }
            return new NodeReply(info(n));
        }
        if (req.length() < n.length || req.length() > (long) n.blocks.size() * storage.blockSize()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path + ": bad commit length " + req.length());
        }
        n.length = req.length();
        if (req.kind() == CommitRequest.Kind.CLOSE) {
            n.lease = 0;
            if (!n.visible) {
                n.visible = true;
                Node old = paths.get(n.path);
                Node parent = paths.get(PathName.parse(n.path).parent().toString());
                if (old != null) {
                    byId.remove(old.id);
                    clearRecord(parent, PathName.parse(n.path).name());
                }
                paths.put(n.path, n);
                addRecord(parent, n);
            }
        }
        return new NodeReply(info(n));
    }

    @Override
    public void close() {
        server.close();
    }
}
