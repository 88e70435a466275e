package io.creel.client.rpc;

import io.creel.client.Futures;
import io.creel.common.error.AnsweredException;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import io.creel.common.namespace.StableHash;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.IdentifiedRequest;
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
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.StatusReply;
import io.creel.common.rpc.ReplyDecoder;
import io.creel.common.rpc.RpcConnection;
import io.creel.common.rpc.RpcConnections;
import io.netty.util.concurrent.EventExecutorGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Sends metadata calls to the namenode that owns a path: the top-level name decides the partition
 * ({@link StableHash#partition}), so every JVM agrees without asking anyone. Calls on a node already
 * known go to the partition it came from, since node ids are only unique within a partition.
 *
 * <p>The one place that retries namenode calls ({@link #call}): a call that failed without an
 * answer — its connection broke before the reply came, the namenode could not be reached (it is
 * restarting) — is sent again on a new connection, up to {@link Retry#attempts} times within
 * {@link Retry#deadline}, with growing pauses. That is safe for every call, the ones that change
 * the namespace too: those carry a {@link RequestIdentity} (this client's random id and a sequence
 * number), the same on every attempt, and the namenode answers a repeated identity with its first
 * answer instead of applying the request again (exactly once, also across its restart when it
 * persists). Errors the namenode answered (NOT_FOUND, ALREADY_EXISTS, ...) and TIMEOUT (the caller
 * was promised an answer within it) are not retried.
 */
public final class NamenodeRouter {
    /**
     * How calls are retried: at most {@code attempts} sends in all, none started after
     * {@code deadline} from the first; pauses grow from none (a dropped idle connection) to
     * {@link #MAX_PAUSE_MILLIS}.
     */
    public record Retry(int attempts, Duration deadline) {
        /** The longest pause between two attempts. */
        public static final long MAX_PAUSE_MILLIS = 2000;

        public Retry {
            if (attempts < 1) {
                throw new IllegalArgumentException("a call needs at least one attempt: " + attempts);
            }
        }

        /** The pause before attempt {@code next} (2, 3, ...): none, then 100 ms doubling up to the cap. */
        long pauseMillis(int next) {
            return next <= 2 ? 0 : Math.min(MAX_PAUSE_MILLIS, 100L << Math.min(20, next - 3));
        }
    }

    private final List<HostPort> namenodes;
    private final RpcConnections connections;
    /** Each namenode's inline limit as its last open reply said, or -1 before the first. */
    private final AtomicIntegerArray inlineLimits;
    private final Retry retry;
    /** Where pauses between attempts wait (the client's event loops). */
    private final EventExecutorGroup timer;
    /** This client's id; requests that change something carry it with their own sequence number. */
    private final RequestIdentity client = RequestIdentity.newClient();
    private final AtomicLong sequence = new AtomicLong();

    /**
     * @param retry how calls that got no answer are retried
     * @param timer where the pauses between attempts are waited out
     */
    public NamenodeRouter(List<HostPort> namenodes, RpcConnections connections, Retry retry,
                          EventExecutorGroup timer) {
        if (namenodes.isEmpty()) {
            throw new IllegalArgumentException("no namenode addresses");
        }
        this.namenodes = List.copyOf(namenodes);
        this.connections = connections;
        this.retry = retry;
        this.timer = timer;
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

    /**
     * Asks every partition at once ({@code ask} gets the partition's index) and completes with their
     * answers in partition order; fails with a {@link CreelException} when any of them fails. For
     * what spans partitions: the root's listing, the cluster's status, draining a server, fsck of "/".
     */
    public <T> CompletableFuture<List<T>> everyPartition(IntFunction<CompletableFuture<T>> ask) {
        List<CompletableFuture<T>> all = new ArrayList<>(namenodes.size());
        for (int i = 0; i < namenodes.size(); i++) {
            all.add(ask.apply(i));
        }
        return Futures.clean(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenApply(v -> all.stream().map(CompletableFuture::join).toList()));
    }

    /** The partition owning {@code path}; the root lives on every partition, partition 0 answers for it. */
    public int partitionOf(PathName path) {
        return path.isRoot() ? 0 : StableHash.partition(path.topLevel(), namenodes.size());
    }

    public CompletableFuture<OpenReply> create(int partition, CreateRequest request) {
        return naming(request.path(), call(partition, Opcode.CREATE, identified(request), openReply(partition)));
    }

    /** LOOKUP; opening for append takes the File's lease, so it is identified like a change. */
    public CompletableFuture<OpenReply> lookup(int partition, String path, boolean forAppend) {
        LookupRequest r = new LookupRequest(path, forAppend);
        return naming(path, call(partition, Opcode.LOOKUP, forAppend ? identified(r) : r, openReply(partition)));
    }

    /** SCAN: keys of an ordered Table from a start key, with their inline values (read-only, not identified). */
    public CompletableFuture<io.creel.common.protocol.ScanReply> scan(int partition,
                                                                     io.creel.common.protocol.ScanRequest request) {
        return naming(request.path(), call(partition, Opcode.SCAN, request, io.creel.common.protocol.ScanReply::decode));
    }

    public CompletableFuture<NodeInfo> remove(int partition, String path, boolean recursive) {
        return naming(path, call(partition, Opcode.REMOVE, identified(new RemoveRequest(path, recursive)),
                NodeReply::decode).thenApply(NodeReply::node));
    }

    /** MOVE; the reply describes the moved node as a lookup would. */
    public CompletableFuture<OpenReply> move(int partition, String source, String target) {
        return naming(source, call(partition, Opcode.MOVE, identified(new MoveRequest(source, target)),
                openReply(partition)));
    }

    public CompletableFuture<BlockLocation> map(int partition, long nodeId, long blockIndex, long lease) {
        return map(partition, nodeId, blockIndex, lease, 0, 0);
    }

    /**
     * MAP; with {@code unreachableTag} the writer asks for the block to move off the server
     * {@code unreachableServer} (its id) it cannot reach, or, for a replicated block, to drop that copy.
     */
    public CompletableFuture<BlockLocation> map(int partition, long nodeId, long blockIndex, long lease,
                                                long unreachableTag, int unreachableServer) {
        MapRequest r = new MapRequest(nodeId, blockIndex, lease, unreachableTag, unreachableServer);
        // With a lease a MAP may allocate: identified, so a retry never allocates a second block.
        return call(partition, Opcode.MAP, lease == 0 ? r : identified(r), MapReply::decode).thenApply(MapReply::block);
    }

    /** LOCATE: the locations of up to {@code count} blocks from {@code firstIndex} on (at least the first). */
    public CompletableFuture<java.util.List<BlockLocation>> locate(int partition, long nodeId, long firstIndex,
                                                                   int count) {
        return call(partition, Opcode.LOCATE, new io.creel.common.protocol.LocateRequest(nodeId,
                firstIndex, count), io.creel.common.protocol.LocateReply::decode)
                .thenApply(io.creel.common.protocol.LocateReply::blocks);
    }

    public CompletableFuture<NodeInfo> commit(int partition, CommitRequest request) {
        return call(partition, Opcode.COMMIT, identified(request), NodeReply::decode).thenApply(NodeReply::node);
    }

    /** SYNC_MANY: identified, and each entry idempotent, so a retry publishes nothing twice. */
    public CompletableFuture<io.creel.common.protocol.SyncManyReply> syncMany(int partition,
                                                                          io.creel.common.protocol.SyncManyRequest request) {
        return call(partition, Opcode.SYNC_MANY, identified(request), io.creel.common.protocol.SyncManyReply::decode);
    }

    /**
     * HAND_OVER: the owner of an expiring node gives it to another session or makes it permanent;
     * identified, so the namenode knows the caller is the owner (and a retry is answered once).
     */
    public CompletableFuture<NodeInfo> handOver(int partition, io.creel.common.protocol.HandOverRequest request) {
        return naming(request.path(), call(partition, Opcode.HAND_OVER, identified(request), NodeReply::decode)
                .thenApply(NodeReply::node));
    }

    /**
     * One session heartbeat to {@code partition}, sent once and never retried: the next beat is the
     * retry, and a beat that waited out a retry's pauses would say nothing about now.
     */
    public CompletableFuture<io.creel.common.protocol.SessionBeatReply> sessionBeat(int partition) {
        return send(partition, Opcode.SESSION_BEAT, identified(Empty.INSTANCE),
                io.creel.common.protocol.SessionBeatReply::decode);
    }

    /** This client's session id: the owner of the expiring nodes it creates ({@link RequestIdentity#clientText()}). */
    public String sessionId() {
        return client.clientText();
    }

    public CompletableFuture<StatusReply> status(int partition) {
        return call(partition, Opcode.STATUS, Empty.INSTANCE, StatusReply::decode);
    }

    public CompletableFuture<io.creel.common.protocol.ServerStatus> decommission(int partition, String address) {
        return call(partition, Opcode.DECOMMISSION, identified(new io.creel.common.protocol.AddressRequest(address)),
                io.creel.common.protocol.ServerStatus::decode);
    }

    public CompletableFuture<io.creel.common.protocol.FsckReply> fsck(int partition, String path) {
        return call(partition, Opcode.FSCK, new io.creel.common.protocol.FsckRequest(path),
                io.creel.common.protocol.FsckReply::decode);
    }

    /** SET_ACCESS at {@code partition}: the node afterwards. */
    public CompletableFuture<NodeInfo> setAccess(int partition, io.creel.common.protocol.SetAccessRequest request) {
        return naming(request.path(), call(partition, Opcode.SET_ACCESS, request,
                in -> io.creel.common.protocol.NodeReply.decode(in).node()));
    }

    /** CREDENTIAL_PUT at {@code partition}. */
    public CompletableFuture<io.creel.common.protocol.CredentialRecord> putCredential(int partition,
            io.creel.common.protocol.CredentialRecord record) {
        return call(partition, Opcode.CREDENTIAL_PUT, record, io.creel.common.protocol.CredentialRecord::decode);
    }

    /** CREDENTIAL_REVOKE at {@code partition}: the credential revoked. */
    public CompletableFuture<io.creel.common.protocol.CredentialRecord> revokeCredential(int partition, String name) {
        return call(partition, Opcode.CREDENTIAL_REVOKE, new io.creel.common.protocol.NameRequest(name),
                io.creel.common.protocol.CredentialRecord::decode);
    }

    /** CREDENTIAL_LIST at {@code partition}. */
    public CompletableFuture<io.creel.common.protocol.CredentialList> credentials(int partition) {
        return call(partition, Opcode.CREDENTIAL_LIST, Empty.INSTANCE, io.creel.common.protocol.CredentialList::decode);
    }

    /** {@code request} with this client's identity and a sequence number of its own. */
    private IdentifiedRequest identified(Message request) {
        return new IdentifiedRequest(client.withSequence(sequence.incrementAndGet()), request);
    }

    /**
     * Whether a failed attempt may be sent again: it got no answer because the connection broke or
     * could not be made (UNAVAILABLE that the namenode did not answer). Everything else is an
     * answer, or a TIMEOUT the caller should hear about now.
     */
    private static boolean unanswered(CreelException e) {
        return e.code() == ErrorCode.UNAVAILABLE && !(e instanceof AnsweredException);
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

    /**
     * Sends {@code request}, again after each attempt that got no answer (see the class comment);
     * the future fails with a {@link CreelException} (never a wrapper): the last attempt's failure,
     * saying how many attempts were made when there were several.
     */
    private <T> CompletableFuture<T> call(int partition, Opcode op, Message request, ReplyDecoder<T> decoder) {
        return attempt(partition, op, request, decoder, 1, System.nanoTime() + retry.deadline().toNanos());
    }

    private <T> CompletableFuture<T> attempt(int partition, Opcode op, Message request, ReplyDecoder<T> decoder,
                                             int n, long deadline) {
        return send(partition, op, request, decoder).exceptionallyCompose(t -> {
            CreelException e = CreelException.unwrap(t);
            if (!unanswered(e) || connections.isClosed()) {
                return CompletableFuture.<T>failedFuture(e);
            }
            long pause = retry.pauseMillis(n + 1);
            if (n >= retry.attempts() || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause) - deadline > 0) {
                return CompletableFuture.<T>failedFuture(n == 1 ? e : new CreelException(e.code(), e.getMessage()
                        + " (gave up after " + n + " attempts)", e));
            }
            if (pause == 0) {
                return attempt(partition, op, request, decoder, n + 1, deadline);
            }
            CompletableFuture<T> next = new CompletableFuture<>();
            try {
                timer.schedule(() -> {
                    attempt(partition, op, request, decoder, n + 1, deadline).whenComplete((v, err) -> {
                        if (err != null) {
                            next.completeExceptionally(CreelException.unwrap(err));
                        } else {
                            next.complete(v);
                        }
                    });
                }, pause, TimeUnit.MILLISECONDS).addListener(f -> {
                    if (f.isCancelled()) {
                        next.completeExceptionally(e); // the client closed during the pause
                    }
                });
            } catch (RejectedExecutionException closing) {
                return CompletableFuture.<T>failedFuture(e); // the client is closing: no more attempts
            }
            return next;
        });
    }

    /** Sends one request once; the future fails with a {@link CreelException} (never a wrapper). */
    private <T> CompletableFuture<T> send(int partition, Opcode op, Message request, ReplyDecoder<T> decoder) {
        HostPort address = namenodes.get(partition);
        RpcConnection ready = connections.ready(address);
        if (ready != null) {
            return ready.call(op, request, decoder); // the usual case: no future to wait for the connection
        }
        return Futures.clean(connections.get(address).thenCompose(c -> c.call(op, request, decoder)));
    }
}
