package io.creel.client.admin;

import io.creel.client.Futures;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.ReplicationProgress;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The operator's calls to the namenodes: their view of the cluster, draining a storage server, and
 * finding data on servers that are gone. Reached through {@link io.creel.client.CreelClient}'s
 * methods of the same names.
 */
public final class ClusterAdmin {
    private final NamenodeRouter router;

    public ClusterAdmin(NamenodeRouter router) {
        this.router = router;
    }

    /** Each namenode's view of the cluster, in partition order. */
    public CompletableFuture<List<StatusReply>> status() {
        return router.everyPartition(router::status);
    }

    /**
     * Starts draining the storage server at {@code address} (host:port) on every namenode; completes
     * with each namenode's view of the server.
     */
    public CompletableFuture<List<ServerStatus>> decommission(String address) {
        return router.everyPartition(i -> router.decommission(i, address));
    }

    /**
     * Makes {@code record} its identity's current credential on every namenode (each checks the
     * connections of its own partition). A failure on some partition leaves the others with the new
     * credential: issuing it again (a new id) makes them agree.
     */
    public CompletableFuture<List<CredentialRecord>> putCredential(CredentialRecord record) {
        return router.everyPartition(i -> router.putCredential(i, record));
    }

    /**
     * Revokes identity {@code name}'s credential on every namenode that has it; fails NOT_FOUND only
     * when none had it. Completes with what was revoked.
     */
    public CompletableFuture<CredentialRecord> revokeCredential(String name) {
        return router.everyPartition(i -> router.revokeCredential(i, name).handle((r, t) -> {
            if (t == null) {
                return r;
            }
            io.creel.common.error.CreelException e = io.creel.common.error.CreelException.unwrap(t);
            if (e.code() == io.creel.common.error.ErrorCode.NOT_FOUND) {
                return (CredentialRecord) null;
            }
            throw e;
        })).thenApply(revoked -> {
            for (CredentialRecord r : revoked) {
                if (r != null) {
                    return r;
                }
            }
            throw new io.creel.common.error.CreelException(io.creel.common.error.ErrorCode.NOT_FOUND, "identity "
                    + name + " has no current credential on any namenode");
        });
    }

    /**
     * Every credential, as each namenode knows it: by name, each with the partitions that have it
     * current (a credential issued while a namenode was down is missing there until issued again).
     */
    public CompletableFuture<List<Issued>> credentials() {
        return router.everyPartition(router::credentials).thenApply(lists -> {
            java.util.Map<String, Issued> byKey = new java.util.TreeMap<>();
            for (int p = 0; p < lists.size(); p++) {
                for (CredentialRecord r : lists.get(p).credentials()) {
                    int partition = p;
                    byKey.compute(r.name() + "#" + r.id(), (k, was) -> {
                        List<Integer> on = new ArrayList<>(was == null ? List.of() : was.partitions());
                        on.add(partition);
                        return new Issued(r, List.copyOf(on), lists.size());
                    });
                }
            }
            return List.copyOf(byKey.values());
        });
    }

    /** A credential and the partitions (of {@code of}) where it is current. */
    public record Issued(CredentialRecord record, List<Integer> partitions, int of) {
        /** Whether every namenode has it current. */
        public boolean everywhere() {
            return partitions.size() == of;
        }
    }

    /**
     * Files and KeyValues at or below {@code path} that have blocks on storage servers that are dead
     * or gone; for "/" every partition is checked and their findings merged.
     */
    /** Two namenodes' replication news as one: counts added, the first non-empty problem kept. */
    public static ReplicationProgress sum(ReplicationProgress a, ReplicationProgress b) {
        return new ReplicationProgress(a.underReplicated() + b.underReplicated(),
                a.waitingForWriter() + b.waitingForWriter(), a.lost() + b.lost(),
                a.repairedBlocks() + b.repairedBlocks(), a.copiedBytes() + b.copiedBytes(),
                a.failedRepairs() + b.failedRepairs(), a.lastProblem().isEmpty() ? b.lastProblem() : a.lastProblem());
    }

    public CompletableFuture<FsckReply> fsck(String path) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            if (!p.isRoot()) {
                return router.fsck(router.partitionOf(p), p.toString());
            }
            return Futures.clean(router.everyPartition(i -> router.fsck(i, "/")).thenApply(replies -> {
                long checked = 0;
                List<FsckReply.Damaged> damaged = new ArrayList<>();
                List<FsckReply.Records> records = new ArrayList<>();
                List<FsckReply.Damaged> under = new ArrayList<>();
                ReplicationProgress progress = ReplicationProgress.NONE;
                for (FsckReply r : replies) {
                    checked += r.checked();
                    damaged.addAll(r.damaged());
                    records.addAll(r.records());
                    under.addAll(r.underReplicated());
                    progress = sum(progress, r.replication());
                }
                return new FsckReply(checked, List.copyOf(damaged), List.copyOf(records), List.copyOf(under), progress);
            }));
        });
    }
}
