package io.creel.client.admin;

import io.creel.client.Futures;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.namespace.PathName;
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
