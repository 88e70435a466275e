package io.creel.client;

import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.SyncManyReply;
import io.creel.common.protocol.SyncManyRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Sends the syncs of many writers ({@link DirectWriter#syncAll}) as SYNC_MANY requests: one per
 * namenode partition, split at {@link SyncManyRequest#MAX_ENTRIES} entries or {@link #MAX_BYTES}
 * of inline bytes so a request stays well inside a frame. A writer joins once everything it issued
 * before completed; one whose writes failed is not sent and fails with that failure.
 */
final class BatchedSync {
    /** Inline bytes per request at most: far below the smallest frame limit (a 4 KiB block plus 64 KiB). */
    static final int MAX_BYTES = 48 << 10;

    /**
     * One writer's sync in a batch.
     *
     * @param upTo      everything the writer issued before this sync
     * @param length    the length to publish
     * @param inlineNow the writer's inline bytes not committed when the sync was issued, or {@code null}
     * @param base      where {@code inlineNow} starts in the node
     */
    record Pending(DirectWriter writer, CompletableFuture<NodeInfo> outcome, CompletableFuture<Void> upTo,
                   long length, byte[] inlineNow, int base) {
    }

    private BatchedSync() {
    }

    static CompletableFuture<Void> send(List<Pending> pending) {
        CompletableFuture<?>[] outcomes = new CompletableFuture<?>[pending.size()];
        for (int i = 0; i < outcomes.length; i++) {
            outcomes[i] = pending.get(i).outcome();
        }
        CompletableFuture<?>[] settled = new CompletableFuture<?>[pending.size()];
        for (int i = 0; i < settled.length; i++) {
            Pending p = pending.get(i);
            settled[i] = p.upTo().handle((v, t) -> {
                if (t != null && !p.outcome().isDone()) {
                    p.writer().batchedSyncDone(null, t, p.outcome());
                }
                return null;
            });
        }
        CompletableFuture.allOf(settled).thenRun(() -> dispatch(pending));
        return CompletableFuture.allOf(outcomes);
    }

    /** Every writer's earlier work has completed: sends the entries of those that may sync. */
    private static void dispatch(List<Pending> pending) {
        Map<Target, List<Pending>> byTarget = new LinkedHashMap<>();
        for (Pending p : pending) {
            if (!p.outcome().isDone()) {
                byTarget.computeIfAbsent(new Target(p.writer().router(), p.writer().partition()),
                        k -> new ArrayList<>()).add(p);
            }
        }
        byTarget.forEach((target, list) -> {
            List<Pending> chunk = new ArrayList<>();
            List<SyncManyRequest.Entry> entries = new ArrayList<>();
            int bytes = 0;
            for (Pending p : list) {
                SyncManyRequest.Entry e = p.writer().batchedEntry(p.length(), p.inlineNow(), p.base());
                int size = e.appended() == null ? 0 : e.appended().length;
                if (!entries.isEmpty() && (entries.size() == SyncManyRequest.MAX_ENTRIES || bytes + size > MAX_BYTES)) {
                    request(target, chunk, entries);
                    chunk = new ArrayList<>();
                    entries = new ArrayList<>();
                    bytes = 0;
                }
                chunk.add(p);
                entries.add(e);
                bytes += size;
            }
            request(target, chunk, entries);
        });
    }

    private static void request(Target target, List<Pending> chunk, List<SyncManyRequest.Entry> entries) {
        CompletableFuture<SyncManyReply> reply;
        try {
            reply = target.router().syncMany(target.partition(), new SyncManyRequest(entries));
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, t) -> {
            for (int i = 0; i < chunk.size(); i++) {
                Pending p = chunk.get(i);
                Throwable failure = t;
                if (failure == null && r.results().size() != entries.size()) {
                    failure = new CreelException(io.creel.common.error.ErrorCode.PROTOCOL, "a sync-many reply has "
                            + r.results().size() + " results for " + entries.size() + " entries");
                }
                if (failure == null) {
                    failure = r.results().get(i).failure();
                }
                p.writer().batchedSyncDone(entries.get(i), failure, p.outcome());
            }
        });
    }

    private record Target(NamenodeRouter router, int partition) {
    }
}
