package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.SyncManyReply;
import io.creel.common.protocol.SyncManyRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
        DataNode n = leased(nodeId, lease);
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

    /** The File or KeyValue {@code nodeId} if {@code lease} is its write lease. */
    private DataNode leased(long nodeId, long lease) {
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
        return n;
    }

    /** See {@link Namespace#syncMany}: each entry applied on its own, its failure its own result. */
    List<SyncManyReply.Result> syncMany(List<SyncManyRequest.Entry> entries) {
        List<SyncManyReply.Result> results = new ArrayList<>(entries.size());
        for (SyncManyRequest.Entry e : entries) {
            try {
                results.add(SyncManyReply.Result.applied(sync(e)));
            } catch (CreelException failure) {
                results.add(SyncManyReply.Result.failed(failure));
            }
        }
        return results;
    }

    /** One entry of a SYNC_MANY: idempotent, so a retried request changes nothing twice. */
    private long sync(SyncManyRequest.Entry e) {
        byte[] appended = e.appended();
        if (appended == null) {
            commit(e.nodeId(), e.lease(), e.length(), false, null, null);
            return e.length();
        }
        reuse.runDue();
        DataNode n = leased(e.nodeId(), e.lease());
        if (n.length == e.length() && (n.inline != null || n.length == 0)) {
            return n.length; // applied already: this is a retry
        }
        long before = e.length() - appended.length;
        if (n.length != before) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": " + appended.length
                    + " bytes appended at " + before + ", but " + n.length + " bytes are committed");
        }
        byte[] had = n.inline == null ? new byte[0] : n.inline;
        byte[] content = Arrays.copyOf(had, had.length + appended.length);
        System.arraycopy(appended, 0, content, had.length, appended.length);
        commit(e.nodeId(), e.lease(), e.length(), false, content, null);
        return e.length();
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
