package io.creel.client;

import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.ScanReply;
import io.creel.common.protocol.ScanRequest;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Scans of ordered Tables for {@link CreelClient#scan} and {@link CreelClient#scanValues}: SCAN
 * requests to the Table's namenode, each for at most {@link ScanRequest#MAX_LIMIT} keys, one after
 * another from the last key the previous one returned, until the limit or the Table's end. Values
 * the namenode keeps inline come with the keys; the others are read from their blocks, all at once.
 */
final class TableScans {
    private final CreelClient client;
    private final NamenodeRouter router;

    TableScans(CreelClient client, NamenodeRouter router) {
        this.client = client;
        this.router = router;
    }

    CompletableFuture<List<DirectoryEntry>> scan(String tablePath, String startKey, int limit) {
        return Futures.guard(() -> {
            PathName table = PathName.parse(tablePath);
            if (table.isRoot()) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "/: the root directory is no Table; only the "
                        + "keys of a Table created ordered can be scanned");
            }
            if (limit < 1) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, table + ": a scan of " + limit
                        + " keys; ask for at least 1");
            }
            if (startKey == null) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, table + ": a scan needs a start key (\"\" for "
                        + "the first)");
            }
            if (!startKey.isEmpty()) {
                PathName.checkComponent(table + "/" + startKey, startKey);
            }
            List<DirectoryEntry> out = new ArrayList<>(Math.min(limit, 1024));
            return page(router.partitionOf(table), table, startKey, false, limit, out);
        });
    }

    /** Asks for the next page from {@code from}; completes with {@code out} once the scan is done. */
    private CompletableFuture<List<DirectoryEntry>> page(int partition, PathName table, String from, boolean after,
                                                         int limit, List<DirectoryEntry> out) {
        int ask = Math.min(ScanRequest.MAX_LIMIT, limit - out.size());
        String prefix = table + "/";
        return router.scan(partition, new ScanRequest(table.toString(), from, after, ask)).thenCompose(r -> {
            for (ScanReply.Entry e : r.entries()) {
                out.add(new DirectoryEntry(e.name(), prefix + e.name(), e.node(), e.data()));
            }
            if (!r.more() || r.entries().isEmpty() || out.size() >= limit) {
                return CompletableFuture.completedFuture(out);
            }
            return page(partition, table, out.get(out.size() - 1).name(), true, limit, out);
        });
    }

    CompletableFuture<List<TableEntry>> scanValues(String tablePath, String startKey, int limit) {
        return scan(tablePath, startKey, limit).thenCompose(entries -> {
            List<CompletableFuture<TableEntry>> values = new ArrayList<>(entries.size());
            for (DirectoryEntry e : entries) {
                values.add(e.data() != null
                        ? CompletableFuture.completedFuture(new TableEntry(e.name(), ByteBuffer.wrap(e.data())))
                        : read(tablePath, e));
            }
            return Futures.clean(CompletableFuture.allOf(values.toArray(CompletableFuture[]::new)).thenApply(v -> {
                List<TableEntry> out = new ArrayList<>(values.size());
                for (CompletableFuture<TableEntry> f : values) {
                    TableEntry t = f.join();
                    if (t != null) {
                        out.add(t);
                    }
                }
                return out;
            }));
        });
    }

    /**
     * Reads the version the scan named from its blocks. If it was replaced or removed since (its node
     * gone, its block reused), the key's current value is read instead; a key removed meanwhile is
     * left out ({@code null}), as a scan started a moment later would have.
     */
    private CompletableFuture<TableEntry> read(String tablePath, DirectoryEntry e) {
        return Futures.guard(() -> {
            long length = e.info().length();
            if (length > Integer.MAX_VALUE - 8) {
                throw new CreelException(ErrorCode.LIMIT_EXCEEDED, e.path() + ": a value of " + length
                        + " bytes does not fit one buffer; read it with a reader");
            }
            ByteBuffer dst = ByteBuffer.allocate((int) length);
            return client.open(e).reader().read(dst).thenApply(n -> new TableEntry(e.name(), dst.flip()));
        }).exceptionallyCompose(t -> {
            CreelException err = CreelException.unwrap(t);
            if (err.code() != ErrorCode.NOT_FOUND && err.code() != ErrorCode.STALE_BLOCK) {
                return Futures.failed(err);
            }
            return client.getValue(tablePath, e.name()).handle((v, t2) -> {
                if (t2 == null) {
                    return new TableEntry(e.name(), v);
                }
                CreelException again = CreelException.unwrap(t2);
                if (again.code() == ErrorCode.NOT_FOUND) {
                    return null;
                }
                throw again;
            });
        });
    }
}
