package io.creel.namenode.namespace;

import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.allocation.AllocatedBlock;
import java.util.concurrent.CompletableFuture;

/**
 * Where the {@link Namespace} records every change a restarted namenode must know. The change
 * methods are called under the namespace lock, in the order the changes happen, and must be quick
 * (append, never wait for the disk); {@link #durable} is how a call waits for its records.
 *
 * <p>Not logged: leases, retirement delays, free lists (derived from the nodes at restart). Answers
 * to identified requests are logged with the changes they made ({@link #answered}).
 */
public interface NamespaceLog {
    /** Logs nothing; every call completes at once. */
    NamespaceLog NONE = new NamespaceLog() {
        @Override
        public void created(long id, NodeType type, byte[] name, long parentId, String storageClass,
                            String locationClass, int replication, boolean enumerable, boolean pending, int slot,
                            long modified) {
        }

        @Override
        public void block(long nodeId, int index, AllocatedBlock block) {
        }

        @Override
        public void trimmed(long nodeId, int keep) {
        }

        @Override
        public void length(long nodeId, long length, long modified) {
        }

        @Override
        public void inline(long nodeId, byte[] data, long modified) {
        }

        @Override
        public void published(long versionId, int slot, long modified) {
        }

        @Override
        public void removed(long nodeId) {
        }

        @Override
        public void moved(long nodeId, long newParentId, byte[] name, int slot, long modified) {
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        public <T> CompletableFuture<T> durable(CompletableFuture<T> outcome, long position) {
            return outcome;
        }
    };

    /**
     * A node was created: live in its parent, or (a KeyValue version) pending in its Table, with
     * record slot {@code slot} (-1: none). The name is UTF-8.
     */
    void created(long id, NodeType type, byte[] name, long parentId, String storageClass, String locationClass,
                 int replication, boolean enumerable, boolean pending, int slot, long modified);

    /**
     * Block {@code index} was allocated to the node: one past its last, or in place of the block at
     * that index, which its writer could not reach.
     */
    void block(long nodeId, int index, AllocatedBlock block);

    /** The node now keeps only its first {@code keep} blocks. */
    void trimmed(long nodeId, int keep);

    /** A committed length, the bytes in the node's blocks (a node that was inline is no longer). */
    void length(long nodeId, long length, long modified);

    /**
     * The node's committed content is {@code data} (its length is theirs), kept inline by the
     * namenode; the array is never changed afterwards.
     */
    void inline(long nodeId, byte[] data, long modified);

    /** A pending KeyValue version became its key's value (replacing any earlier one), in slot {@code slot}. */
    void published(long versionId, int slot, long modified);

    /** The node and everything below it are gone (removed, undone, or a dropped pending version). */
    void removed(long nodeId);

    /** The node now lives in {@code newParentId} as {@code name} (UTF-8), in record slot {@code slot}. */
    void moved(long nodeId, long newParentId, byte[] name, int slot, long modified);

    /**
     * Node {@code nodeId} expires from now on, owned by client {@code ownerHigh}/{@code ownerLow},
     * {@code graceMillis} after that client was last heard (-1: the session timeout); with
     * {@code graceMillis} 0 it no longer expires (made permanent). See {@link io.creel.common.protocol.Expiry}.
     */
    default void owned(long nodeId, long ownerHigh, long ownerLow, long graceMillis) {
    }

    /**
     * Node {@code nodeId} is owned by {@code owner}, in group {@code group}, with mode {@code mode}
     * from now on (a create's, after its CREATED record, or a chmod/chown); see {@link Ownership}.
     */
    default void access(long nodeId, String owner, String group, int mode) {
    }

    /** Identity {@code name}'s current credential is issue {@code id}, in {@code groups} (replacing any earlier one). */
    default void credential(String name, String id, java.util.List<String> groups, long createdMillis) {
    }

    /** Identity {@code name}'s credential was revoked. */
    default void revoked(String name) {
    }

    /**
     * The Table the {@link #created} call just before created keeps its keys in order (an ordered
     * Table); none by default for logs that only count.
     */
    default void ordered(long nodeId) {
    }

    /**
     * Whether this log keeps answers ({@link #answered}); encoding them for a log that does not is
     * wasted work. None by default.
     */
    default boolean keepsAnswers() {
        return false;
    }

    /**
     * Identified request {@code request} ({@code op}) changed what the records before this one say,
     * and was answered {@code reply} (its encoding) at {@code atMillis}: a restarted namenode gives
     * a retry of it that answer. The array is never changed afterwards.
     */
    default void answered(RequestIdentity request, Opcode op, byte[] reply, long atMillis) {
    }

    /**
     * The change identified request {@code request} made was undone after its answer was logged
     * (its directory record could not be written): forget that answer, a retry runs again.
     */
    default void withdrawn(RequestIdentity request) {
    }

    /** The log position after the last record appended. */
    long position();

    /**
     * {@code outcome}, completing only once the log is durable up to {@code position} (per the sync
     * policy); if {@code outcome} fails, once the records appended up to the failure are. A log that
     * can no longer write fails the call instead.
     */
    <T> CompletableFuture<T> durable(CompletableFuture<T> outcome, long position);
}
