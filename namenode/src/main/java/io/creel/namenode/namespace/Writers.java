package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.RequestIdentity;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The rules of writing a File or KeyValue under its lease: a commit publishes a length (never
 * shrinking, within the allocated blocks, or the whole content inline), a close also ends the lease,
 * gives back blocks beyond the length and publishes a KeyValue version; a lease that ends without a
 * close (given back, or its owner gone) keeps a File's committed length and drops an uncommitted
 * version. Called under the namespace lock.
 */
final class Writers {
    private final Namespace namespace;
    private final NodeTable nodes;
    private final Leases leases;
    private final BlockMap blocks;
    private final InlineValues inline;
    private final KeyValueVersions versions;
    private final ReuseQueue reuse;
    private final long blockSize;
    private final LongSupplier clock;

    Writers(Namespace namespace, NodeTable nodes, Leases leases, BlockMap blocks, InlineValues inline,
            KeyValueVersions versions, ReuseQueue reuse, long blockSize, LongSupplier clock) {
        this.namespace = namespace;
        this.nodes = nodes;
        this.leases = leases;
        this.blocks = blocks;
        this.inline = inline;
        this.versions = versions;
        this.reuse = reuse;
        this.blockSize = blockSize;
        this.clock = clock;
    }

    /** See {@link Namespace#commit(long, long, long, boolean, byte[], RequestIdentity)}. */
    CompletableFuture<NodeInfo> commit(long nodeId, long lease, long length, boolean close,
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
            inline.check(n, data);
        } else {
            long capacity = n.layout(blockSize).capacity(n.blockCount());
            if (length > capacity) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": length " + length
                        + " exceeds the " + n.blockCount() + " allocated blocks (" + capacity + " bytes); map blocks first");
            }
        }
        if (close && n.type == NodeType.KEYVALUE) {
            versions.prepareClose(n); // fails before anything changed
        }
        n.length = length;
        n.modifiedMillis = clock.getAsLong();
        if (data != null) {
            InlineValues.keep(n, data);
            namespace.log().inline(n.id, data, n.modifiedMillis);
        } else {
            n.inline = null;
            namespace.log().length(n.id, n.length, n.modifiedMillis);
        }
        if (!close) {
            return CompletableFuture.completedFuture(n.info());
        }
        leases.release(n);
        blocks.trim(n);
        if (n.type == NodeType.FILE) {
            return CompletableFuture.completedFuture(n.info());
        }
        return versions.publish(n, request);
    }

    /** Gives the lease back publishing nothing more; see {@link Namespace#abandon(long, long)}. */
    NodeInfo abandon(long nodeId, long lease) {
        reuse.runDue();
        Node n = nodes.get(nodeId);
        if (n == null || n.state == Node.State.RETIRED) {
            throw new CreelException(ErrorCode.NOT_FOUND, "node " + nodeId + " does not exist (removed or replaced)");
        }
        if (lease == 0 || !(n instanceof DataNode d) || d.leaseValue() != lease) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, n.path() + ": the lease given is not this "
                    + n.type.displayName() + "'s write lease; only the lease holder may give it back");
        }
        leases.release(d);
        NodeInfo info = d.info();
        leaseEnded(d);
        return info;
    }

    /** Every lease of {@code owner} ends as if given back. */
    void connectionClosed(Object owner) {
        for (DataNode n : leases.endAll(owner)) {
            leaseEnded(n);
        }
    }

    /** What follows a lease that ended without a close: trim a File, drop an uncommitted version. */
    private void leaseEnded(DataNode n) {
        if (n.state == Node.State.PENDING) {
            versions.drop(n);
        } else if (n.state == Node.State.LIVE) {
            blocks.trim(n);
        }
    }
}
