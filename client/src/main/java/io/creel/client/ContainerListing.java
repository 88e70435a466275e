package io.creel.client;

import io.creel.client.block.BlockIo;
import io.creel.client.rpc.NamenodeRouter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.NodeInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Lists containers for {@link CreelClient#list}: reads a container's directory records from its
 * data, then looks up every listed child (all lookups in flight at once) and leaves out children
 * that no longer exist. The root merges the listings of all namenode partitions.
 */
final class ContainerListing {
    /** Bytes of directory records read per request. */
    private static final int LIST_CHUNK = 4 << 20;

    private final CreelClient client;
    private final NamenodeRouter router;
    private final BlockIo blockIo;

    ContainerListing(CreelClient client, NamenodeRouter router, BlockIo blockIo) {
        this.client = client;
        this.router = router;
        this.blockIo = blockIo;
    }

    CompletableFuture<List<DirectoryEntry>> list(String path) {
        return Futures.guard(() -> {
            PathName p = PathName.parse(path);
            if (!p.isRoot()) {
                return listOne(router.partitionOf(p), p);
            }
            return Futures.clean(router.everyPartition(i -> listOne(i, p)).thenApply(parts -> {
                List<DirectoryEntry> all = new ArrayList<>();
                parts.forEach(all::addAll);
                return all;
            }));
        });
    }

    private CompletableFuture<List<DirectoryEntry>> listOne(int partition, PathName dir) {
        return router.lookup(partition, dir.toString(), false).thenCompose(open -> {
            NodeInfo n = open.node();
            if (!n.type().isContainer()) {
                throw new CreelException(ErrorCode.NOT_A_CONTAINER, dir + " is a " + n.type().displayName()
                        + ", not a container");
            }
            if (!n.enumerable()) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, dir + " is not enumerable (a Table created "
                        + "non-enumerable keeps no list of its keys)");
            }
            CreelNode container = client.node(dir.toString(), partition, open);
            List<DirectoryRecord> records = new ArrayList<>();
            long bs = blockIo.blockSize();
            return readRecords(container.dataReader(), 0, Math.max(bs, LIST_CHUNK / bs * bs), records)
                    .thenCompose(v -> lookupChildren(dir, records));
        });
    }

    /**
     * Reads a container's records from {@code from} (a block boundary) to its end, {@code chunk}
     * bytes (whole blocks) per request. A block refused as STALE_BLOCK holds nothing this listing
     * can use — its first record is still being written, or the container was removed and the block
     * reused — so it is skipped (a multi-block chunk is read again block by block to find it). A
     * record in it whose create has returned would have claimed it: skipping never hides one.
     */
    private CompletableFuture<Void> readRecords(DirectReader reader, long from, long chunk, List<DirectoryRecord> out) {
        long end = reader.length();
        if (from >= end) {
            return CompletableFuture.completedFuture(null);
        }
        int n = (int) Math.min(chunk, end - from);
        ByteBuffer buf = ByteBuffer.allocate(n);
        return reader.read(from, buf).handle((read, t) -> {
            if (t == null) {
                buf.flip();
                while (buf.remaining() >= DirectoryRecord.SIZE) {
                    DirectoryRecord r = DirectoryRecord.readFrom(buf);
                    if (r != null) {
                        out.add(r);
                    }
                }
                return readRecords(reader, from + n, chunk, out);
            }
            CreelException e = CreelException.unwrap(t);
            if (e.code() != ErrorCode.STALE_BLOCK) {
                return Futures.<Void>failed(e);
            }
            long bs = blockIo.blockSize();
            if (n <= bs) {
                return readRecords(reader, from + n, chunk, out); // this block has nothing to list
            }
            DirectReader part = reader.limitedTo(from + n);
            return readRecords(part, from, bs, out).thenCompose(v -> readRecords(reader, from + n, chunk, out));
        }).thenCompose(f -> f);
    }

    private CompletableFuture<List<DirectoryEntry>> lookupChildren(PathName dir, List<DirectoryRecord> records) {
        List<CompletableFuture<DirectoryEntry>> lookups = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (DirectoryRecord r : records) {
            if (!seen.add(r.name())) {
                continue; // a slot being reused may briefly show a name twice
            }
            PathName child = dir.child(r.name());
            int partition = router.partitionOf(child);
            lookups.add(router.lookup(partition, child.toString(), false).handle((open, t) -> {
                if (t == null) {
                    if (open.firstBlock() != null) {
                        blockIo.cache().put(open.firstBlock(), partition);
                    }
                    return new DirectoryEntry(r.name(), child.toString(), open.node(), open.data());
                }
                CreelException e = CreelException.unwrap(t);
                if (e.code() == ErrorCode.NOT_FOUND) {
                    return null; // removed after its record was read: the namenode is the authority
                }
                throw e;
            }));
        }
        return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<DirectoryEntry> out = new ArrayList<>(lookups.size());
            for (CompletableFuture<DirectoryEntry> f : lookups) {
                DirectoryEntry e = f.join();
                if (e != null) {
                    out.add(e);
                }
            }
            return out;
        });
    }
}
