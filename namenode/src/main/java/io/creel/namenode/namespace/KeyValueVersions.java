package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import java.util.concurrent.CompletableFuture;

/**
 * The KeyValue's rules: a create makes a new invisible version of the key (pending in its Table),
 * written under a lease, or holding its whole value inline and committed at once; a close publishes
 * the version as the key's value atomically, the last commit winning and the replaced version
 * retired; a lease that ends without a close drops the version. The key keeps its record slot across
 * replacements. Called under the namespace lock; {@link Namespace} coordinates the log and records.
 */
final class KeyValueVersions {
    private final Namespace namespace;
    private final NodeTable nodes;
    private final Leases leases;
    private final BlockMap blocks;
    private final InlineValues inline;
    private final Retirement retirement;
    private final DirectoryRecords records;

    KeyValueVersions(Namespace namespace, NodeTable nodes, Leases leases, BlockMap blocks, InlineValues inline,
                     Retirement retirement, DirectoryRecords records) {
        this.namespace = namespace;
        this.nodes = nodes;
        this.leases = leases;
        this.blocks = blocks;
        this.inline = inline;
        this.retirement = retirement;
        this.records = records;
    }

    /**
     * A new version {@code v} of its key: with a {@code value} that fits inline it holds it and is
     * published at once; otherwise it gets its first block and a lease owned by {@code owner}, and
     * stays pending until its writer closes it. Its first block is sized by {@code sizeHint}, else by
     * the value offered (0 and none: unknown).
     */
    CompletableFuture<OpenReply> create(DataNode v, byte[] value, long sizeHint, Object owner,
                                        RequestIdentity request) {
        if (value != null && inline.fits(value.length)) {
            return createWithValue(v, value, request);
        }
        v.addBlock(blocks.allocateFirst(v, sizeHint > 0 ? sizeHint : value != null ? value.length : 0));
        nodes.add(v);
        v.parent.addPending(v);
        leases.grant(v, owner);
        namespace.logCreated(v);
        return CompletableFuture.completedFuture(namespace.reply(v));
    }

    /** A version created holding its whole value inline, and committed at once. */
    private CompletableFuture<OpenReply> createWithValue(DataNode v, byte[] value, RequestIdentity request) {
        Container table = v.parent;
        if (table.enumerable && table.child(v.name) == null) {
            // The key's first value needs a record; fail (or ask for a region) before changing anything.
            namespace.growRecords(table, records.blockIndexOf(records.nextSlot(table)));
        }
        InlineValues.keep(v, value);
        v.length = value.length;
        nodes.add(v);
        namespace.logCreated(v);
        // The client has the value: the reply need not carry it back. Publishing changes nothing it shows.
        OpenReply reply = new OpenReply(v.info(), 0, null, null, inline.max());
        CompletableFuture<OpenReply> published = publish(v, request).thenApply(info -> reply);
        namespace.expect(reply);
        return published;
    }

    /** Before a close of version {@code v} changes anything: the key's first value needs a record slot. */
    void prepareClose(DataNode v) {
        Container table = v.parent;
        if (table.state == Node.State.LIVE && table.child(v.name) == null && table.enumerable) {
            namespace.growRecords(table, records.blockIndexOf(records.nextSlot(table)));
        }
    }

    /** Makes a closed version its key's value, retiring the version it replaces. */
    CompletableFuture<NodeInfo> publish(DataNode v, RequestIdentity request) {
        Container table = v.parent;
        table.removePending(v); // a version created with its value was never pending
        if (table.state != Node.State.LIVE) {
            retirement.retire(v);
            throw new CreelException(ErrorCode.NOT_FOUND, v.path() + ": the Table was removed before the commit");
        }
        v.state = Node.State.LIVE;
        nodes.liveAdded(v.type);
        Node old = table.putChild(v);
        table.modifiedMillis = v.modifiedMillis;
        NodeInfo info = v.info();
        NamespaceLog log = namespace.log();
        if (old != null) {
            // A replacement keeps the key's record slot: the listing names the key, which did not change.
            v.slot = old.slot;
            old.slot = -1;
            retirement.retire(old);
            log.published(v.id, v.slot, v.modifiedMillis);
            return CompletableFuture.completedFuture(info);
        }
        CompletableFuture<Void> written;
        try {
            written = namespace.addRecord(table, v);
        } catch (CreelException e) {
            retirement.detach(v);
            retirement.retire(v);
            log.removed(v.id);
            throw e;
        }
        log.published(v.id, v.slot, v.modifiedMillis);
        namespace.expect(info);
        String path = v.path();
        return written.handle((x, err) -> {
            if (err == null) {
                return info;
            }
            synchronized (namespace) {
                if (v.state == Node.State.LIVE && table.child(v.name) == v) {
                    records.free(table, v);
                    retirement.detach(v);
                    retirement.retire(v);
                    namespace.log().removed(v.id);
                    namespace.withdraw(request);
                }
            }
            throw DirectoryRecords.failure(path, err);
        });
    }

    /** A version whose lease ended without a close: dropped, its key keeps its value. */
    void drop(DataNode v) {
        v.parent.removePending(v);
        retirement.retire(v);
        namespace.log().removed(v.id);
    }
}
