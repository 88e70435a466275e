package io.creel.client.rpc;

import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import io.creel.common.namespace.StableHash;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Empty;
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
import io.creel.common.protocol.StatusReply;
import io.creel.common.rpc.ReplyDecoder;
import io.creel.common.rpc.RpcConnection;
import io.creel.common.rpc.RpcConnections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Sends metadata calls to the namenode that owns a path: the top-level name decides the partition
 * ({@link StableHash#partition}), so every JVM agrees without asking anyone. Calls on a node already
 * known go to the partition it came from, since node ids are only unique within a partition.
 */
public final class NamenodeRouter {
    private final List<HostPort> namenodes;
    private final RpcConnections connections;
    /** Each namenode's inline limit as its last open reply said, or -1 before the first. */
    private final AtomicIntegerArray inlineLimits;

    public NamenodeRouter(List<HostPort> namenodes, RpcConnections connections) {
        if (namenodes.isEmpty()) {
            throw new IllegalArgumentException("no namenode addresses");
        }
        this.namenodes = List.copyOf(namenodes);
        this.connections = connections;
        this.inlineLimits = new AtomicIntegerArray(namenodes.size());
        for (int i = 0; i < namenodes.size(); i++) {
            inlineLimits.set(i, -1);
        }
    }

    /**
     * The most bytes the namenode of {@code partition} keeps inline ({@code creel.namenode.inline.max}),
     * as learned from its replies; -1 while none has come yet.
     */
    public int inlineLimit(int partition) {
        return inlineLimits.get(partition);
    }

    /** Decodes an open reply and remembers the inline limit it carries. */
    private ReplyDecoder<OpenReply> openReply(int partition) {
        return body -> {
            OpenReply r = OpenReply.decode(body);
            inlineLimits.set(partition, r.inlineLimit());
            return r;
        };
    }

    public int partitions() {
        return namenodes.size();
    }

    public HostPort address(int partition) {
        return namenodes.get(partition);
    }

    /** The partition owning {@code path}; the root lives on every partition, partition 0 answers for it. */
    public int partitionOf(PathName path) {
        return path.isRoot() ? 0 : StableHash.partition(path.topLevel(), namenodes.size());
    }

    public CompletableFuture<OpenReply> create(int partition, CreateRequest request) {
        return naming(request.path(), call(partition, Opcode.CREATE, request, openReply(partition)));
    }

    public CompletableFuture<OpenReply> lookup(int partition, String path, boolean forAppend) {
        LookupRequest r = new LookupRequest(path, forAppend);
        return naming(path, forAppend ? call(partition, Opcode.LOOKUP, r, openReply(partition))
                : callSafeToRepeat(partition, Opcode.LOOKUP, r, openReply(partition)));
    }

    public CompletableFuture<NodeInfo> remove(int partition, String path, boolean recursive) {
        return naming(path, call(partition, Opcode.REMOVE, new RemoveRequest(path, recursive), NodeReply::decode)
                .thenApply(NodeReply::node));
    }

    /** MOVE; the reply describes the moved node as a lookup would. */
    public CompletableFuture<OpenReply> move(int partition, String source, String target) {
        return naming(source, call(partition, Opcode.MOVE, new MoveRequest(source, target), openReply(partition)));
    }

    public CompletableFuture<BlockLocation> map(int partition, long nodeId, long blockIndex, long lease) {
        return map(partition, nodeId, blockIndex, lease, 0);
    }

    /** MAP; with {@code unreachableTag} the writer asks for the block to move off a server it cannot reach. */
    public CompletableFuture<BlockLocation> map(int partition, long nodeId, long blockIndex, long lease,
                                                long unreachableTag) {
        MapRequest r = new MapRequest(nodeId, blockIndex, lease, unreachableTag);
        // A lease belongs to its connection: once that is lost, so is the lease, and a retry cannot help.
        return (lease == 0 ? callSafeToRepeat(partition, Opcode.MAP, r, MapReply::decode)
                : call(partition, Opcode.MAP, r, MapReply::decode)).thenApply(MapReply::block);
    }

    /** LOCATE: the locations of up to {@code count} blocks from {@code firstIndex} on (at least the first). */
    public CompletableFuture<java.util.List<BlockLocation>> locate(int partition, long nodeId, long firstIndex,
                                                                   int count) {
        return callSafeToRepeat(partition, Opcode.LOCATE, new io.creel.common.protocol.LocateRequest(nodeId,
                firstIndex, count), io.creel.common.protocol.LocateReply::decode)
                .thenApply(io.creel.common.protocol.LocateReply::blocks);
    }

    public CompletableFuture<NodeInfo> commit(int partition, CommitRequest request) {
        return call(partition, Opcode.COMMIT, request, NodeReply::decode).thenApply(NodeReply::node);
    }

    public CompletableFuture<StatusReply> status(int partition) {
        return callSafeToRepeat(partition, Opcode.STATUS, Empty.INSTANCE, StatusReply::decode);
    }

    public CompletableFuture<io.creel.common.protocol.ServerStatus> decommission(int partition, String address) {
        return call(partition, Opcode.DECOMMISSION, new io.creel.common.protocol.AddressRequest(address),
                io.creel.common.protocol.ServerStatus::decode);
    }

    public CompletableFuture<io.creel.common.protocol.FsckReply> fsck(int partition, String path) {
        return callSafeToRepeat(partition, Opcode.FSCK, new io.creel.common.protocol.FsckRequest(path),
                io.creel.common.protocol.FsckReply::decode);
    }

    /**
     * For requests that change nothing (lookup, read-only map, status, fsck): a connection that broke
     * (UNAVAILABLE) is reopened and the request sent once more. A TIMEOUT is not retried — the caller
     * was promised an answer within the timeout — and requests that change the namespace (create,
     * remove, move, commit, allocating map) are never repeated, since the first may have taken effect.
     */
    private <T> CompletableFuture<T> callSafeToRepeat(int partition, Opcode op, Message request,
                                                      ReplyDecoder<T> decoder) {
        return call(partition, op, request, decoder).exceptionallyCompose(e -> {
            if (CreelException.unwrap(e).code() == ErrorCode.UNAVAILABLE) {
                return call(partition, op, request, decoder);
            }
            return CompletableFuture.<T>failedFuture(CreelException.unwrap(e));
        });
    }

    /**
     * A namenode that cannot be reached fails a call with a message about the connection only
     * ("cannot connect to host:port ..."); the caller also needs to know which node the call was
     * for, so such failures get the path in front. Errors the namenode sent name the path already.
     */
    private static <T> CompletableFuture<T> naming(String path, CompletableFuture<T> f) {
        return f.exceptionallyCompose(t -> {
            CreelException e = CreelException.unwrap(t);
            String msg = e.getMessage() == null ? "" : e.getMessage();
            boolean transport = e.code() == ErrorCode.TIMEOUT || e.code() == ErrorCode.UNAVAILABLE;
            return Futures.failed(transport && !msg.startsWith(path)
                    ? new CreelException(e.code(), path + ": " + msg, e) : e);
        });
    }

    /** Sends one request; the future fails with a {@link CreelException} (never a wrapper). */
    private <T> CompletableFuture<T> call(int partition, Opcode op, Message request, ReplyDecoder<T> decoder) {
        HostPort address = namenodes.get(partition);
        RpcConnection ready = connections.ready(address);
        if (ready != null) {
            return ready.call(op, request, decoder); // the usual case: no future to wait for the connection
        }
        return Futures.clean(connections.get(address).thenCompose(c -> c.call(op, request, decoder)));
    }
}
