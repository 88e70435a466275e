package io.creel.namenode.service;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.HeartbeatReply;
import io.creel.common.protocol.HeartbeatRequest;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.MapReply;
import io.creel.common.protocol.MapRequest;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.MoveRequest;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RegisterRequest;
import io.creel.common.protocol.RemoveRequest;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.registry.ServerRegistry;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the namenode opcodes: decodes each request (a malformed body raises a
 * {@link io.creel.common.protocol.ProtocolException}, which closes the connection), runs it against
 * the namespace or registry, and replies when its outcome is known. Leases belong to the connection
 * a request came on and end when it closes.
 */
public final class NamenodeService implements RequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeService.class);

    private final Namespace namespace;
    private final ServerRegistry registry;
    private final BlockAllocator allocator;

    /** A service over one namenode's namespace, storage-server registry and allocator. */
    public NamenodeService(Namespace namespace, ServerRegistry registry, BlockAllocator allocator) {
        this.namespace = namespace;
        this.registry = registry;
        this.allocator = allocator;
    }

    @Override
    public void handle(RpcCall call) {
        Channel connection = call.channel();
        switch (call.opcode()) {
            case CREATE -> replyWhenDone(call, namespace.create(CreateRequest.decode(call.body()), connection));
            case LOOKUP -> {
                LookupRequest r = LookupRequest.decode(call.body());
                call.reply(namespace.lookup(r.path(), r.forAppend(), connection));
            }
            case REMOVE -> {
                RemoveRequest r = RemoveRequest.decode(call.body());
                replyWhenDone(call, namespace.remove(r.path(), r.recursive()).thenApply(NodeReply::new));
            }
            case MOVE -> {
                MoveRequest r = MoveRequest.decode(call.body());
                replyWhenDone(call, namespace.move(r.source(), r.target()).thenApply(NodeReply::new));
            }
            case MAP -> {
                MapRequest r = MapRequest.decode(call.body());
                call.reply(new MapReply(namespace.map(r.nodeId(), r.blockIndex(), r.lease())));
            }
            case COMMIT -> {
                CommitRequest r = CommitRequest.decode(call.body());
                replyWhenDone(call, namespace.commit(r.nodeId(), r.lease(), r.length(), r.close())
                        .thenApply(NodeReply::new));
            }
            case REGISTER -> {
                RegisterRequest r = RegisterRequest.decode(call.body());
                int id = registry.register(r.server()).serverId();
                LOG.info("storage server {} ({} tier, class {}, {} blocks) registered as {}", r.server().address(),
                        r.server().tier(), r.server().storageClass(), r.server().blockCount(), id);
                call.reply(new RegisterReply(id));
            }
            case HEARTBEAT -> {
                HeartbeatRequest r = HeartbeatRequest.decode(call.body());
                call.reply(new HeartbeatReply(registry.heartbeat(r.serverId(), r.localToken())));
            }
            case STATUS -> {
                Empty.decode(call.body());
                call.reply(status());
            }
            default -> throw new CreelException(ErrorCode.INVALID_ARGUMENT, "a namenode does not serve "
                    + call.opcode() + "; data-plane requests go to a storage server");
        }
    }

    /** The namenode's view of the cluster, as STATUS replies it. */
    public StatusReply status() {
        namespace.releaseDue();
        List<ServerStatus> servers = new ArrayList<>();
        for (ServerRegistry.ServerView s : registry.servers()) {
            BlockAllocator.Counts c = allocator.counts(s.info());
            servers.add(new ServerStatus(s.info(), s.state(), c.used(), c.free(), c.pending(), s.heartbeatAgeMillis()));
        }
        return new StatusReply(namespace.nodeCount(), allocator.classes(), servers);
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
    public void connectionClosed(Channel channel) {
        namespace.connectionClosed(channel);
    }
}
