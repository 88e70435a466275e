package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.RequestIdentity;

/**
 * The rules of expiring nodes ({@link Expiry}; who owns what and when owners were heard is
 * {@link OwnedNodes}): which creates may expire, how an owner hands a node over, the changes they
 * log, and removing the nodes whose owners went silent. Called under the namespace lock.
 */
final class Expiries {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Expiries.class);
    private final Namespace namespace;
    private final NodeTable nodes;
    private final OwnedNodes owned;
    /** Nodes {@link #expireDue} removed so far. */
    private long expired;

    Expiries(Namespace namespace, NodeTable nodes, OwnedNodes owned) {
        this.namespace = namespace;
        this.nodes = nodes;
        this.owned = owned;
    }

    /**
     * Refuses an expiring create that cannot be one, before anything changes: a KeyValue (each put
     * makes a new version, which would have to inherit the owner; its Table expires instead), or a
     * create that names no client to own the node.
     */
    void checkCreate(CreateRequest req, Utf8Path path, RequestIdentity request) {
        if (!req.expiry().expires()) {
            return;
        }
        if (req.type() == NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": a KeyValue cannot expire by itself (each "
                    + "put replaces it); create its Table with the expiry instead");
        }
        if (request == null) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": an expiring node needs an owner, and this "
                    + "create carries no client id");
        }
    }

    /** {@code n} was just created (and logged) by {@code request}: it is owned by its client if it expires. */
    void created(Node n, Expiry expiry, RequestIdentity request) {
        if (expiry.expires()) {
            owned.own(n.id, request.clientHigh(), request.clientLow(), expiry);
            namespace.log().owned(n.id, request.clientHigh(), request.clientLow(), expiry.graceMillis());
        }
    }

    /** See {@link Namespace#expireDue()}: each due node goes through the recursive remove. */
    int expireDue() {
        int removed = 0;
        for (OwnedNodes.Due due : owned.due()) {
            Node n = nodes.get(due.nodeId());
            if (n == null || n.state != Node.State.LIVE) {
                owned.drop(due.nodeId()); // gone already: an enclosing expiring node took it along
                continue;
            }
            String path = n.path();
            LOG.info("{}: removed with everything below it: its owner, session {}, has not been heard for {} ms "
                    + "(it expires {} ms after that)", path, due.owner(), due.silentMillis(), due.graceMillis());
            namespace.remove(path, true, null).whenComplete((info, err) -> {
                if (err != null) {
                    // The node is gone from the namespace either way; only its log record may be missing.
                    LOG.warn("{}: expired, but its removal failed to complete: {}", path,
                            CreelException.unwrap(err).getMessage());
                }
            });
            removed++;
        }
        expired += removed;
        return removed;
    }

    /** Nodes {@link #expireDue} removed since the namespace started. */
    long expired() {
        return expired;
    }

    /**
     * Hands the expiring node at {@code path} to session {@code newOwner} with {@code expiry}, or
     * makes it permanent ({@link Expiry#NONE}); only its owner ({@code caller}'s client) may.
     *
     * @return the node
     */
    Node handOver(Utf8Path path, String newOwner, Expiry expiry, RequestIdentity caller) {
        Node n = nodes.resolve(path);
        if (!owned.expires(n.id)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": not an expiring node, so it has no owner "
                    + "to hand it over (only a node created with an expiry has one)");
        }
        if (!owned.isOwner(n.id, caller)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": owned by session "
                    + owned.describe(n.id).owner() + "; only its owner can hand it over"
                    + (caller == null ? "" : " (this is session " + caller.clientText() + ")"));
        }
        if (!expiry.expires()) {
            owned.drop(n.id);
            namespace.log().owned(n.id, 0, 0, 0);
            return n;
        }
        RequestIdentity to;
        try {
            to = RequestIdentity.parseClient(newOwner);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + ": cannot hand it over: " + e.getMessage(), e);
        }
        owned.own(n.id, to.clientHigh(), to.clientLow(), expiry);
        namespace.log().owned(n.id, to.clientHigh(), to.clientLow(), expiry.graceMillis());
        return n;
    }
}
