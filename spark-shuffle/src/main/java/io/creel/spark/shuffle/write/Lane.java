package io.creel.spark.shuffle.write;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One writer of the merged layout: a File per reduce partition ({@code part-{p}/{name}}), created on
 * its first batch and kept open (its write lease held) across the map tasks that use the lane, one
 * at a time. A task appends its batches and then {@link #sync}s: one SYNC_MANY publishes every File
 * it touched. A lane whose append or sync failed is {@link #broken()}: its Files keep what earlier
 * syncs published, and it takes no more tasks.
 */
final class Lane {
    private final CreelClient client;
    private final String shuffleDir;
    private final String name;
    private final CreateOptions placement;
    /** Each partition's writer, once its File is created (or being created). */
    private final Map<Integer, CompletableFuture<DirectWriter>> writers = new HashMap<>();
    /** Partitions appended to since the last sync. */
    private final java.util.Set<Integer> touched = new java.util.LinkedHashSet<>();
    private volatile boolean broken;

    Lane(CreelClient client, String shuffleDir, String name, CreateOptions placement) {
        this.client = client;
        this.shuffleDir = shuffleDir;
        this.name = name;
        this.placement = placement;
    }

    String name() {
        return name;
    }

    boolean broken() {
        return broken;
    }

    /** Appends one batch (header and payload) to partition {@code p}'s File; the buffer is the lane's until done. */
    synchronized CompletableFuture<Void> append(int p, ByteBuffer batch) {
        CompletableFuture<DirectWriter> w = writers.computeIfAbsent(p, this::open);
        touched.add(p);
        return watch(w.thenCompose(writer -> writer.write(batch)));
    }

    /** Publishes every File appended to since the last sync, in one request per namenode partition. */
    synchronized CompletableFuture<Void> sync() {
        List<CompletableFuture<DirectWriter>> pending = new ArrayList<>(touched.size());
        for (int p : touched) {
            pending.add(writers.get(p));
        }
        touched.clear();
        return watch(CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            List<DirectWriter> ws = new ArrayList<>(pending.size());
            for (CompletableFuture<DirectWriter> f : pending) {
                ws.add(f.join());
            }
            return ws.isEmpty() ? CompletableFuture.completedFuture(null) : DirectWriter.syncAll(ws);
        }));
    }

    /** Closes every File (publishing what was written); the lane is done. */
    synchronized CompletableFuture<Void> close() {
        broken = true;
        List<CompletableFuture<?>> closes = new ArrayList<>();
        for (CompletableFuture<DirectWriter> w : writers.values()) {
            closes.add(w.thenCompose(DirectWriter::close));
        }
        return CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new));
    }

    private <T> CompletableFuture<T> watch(CompletableFuture<T> f) {
        return f.whenComplete((v, t) -> {
            if (t != null) {
                broken = true;
            }
        });
    }

    /** Creates partition {@code p}'s File of this lane, and the partition's Bag if no lane made it yet. */
    private CompletableFuture<DirectWriter> open(int p) {
        String bag = ShufflePaths.partitionBag(shuffleDir, p);
        String path = bag + "/" + name;
        return client.create(path, NodeType.FILE, placement).exceptionallyCompose(t -> {
            CreelException e = CreelException.unwrap(t);
            if (e.code() != ErrorCode.NOT_FOUND) {
                return CompletableFuture.failedFuture(e);
            }
            return client.create(bag, NodeType.BAG).exceptionallyCompose(t2 -> {
                CreelException e2 = CreelException.unwrap(t2);
                return e2.code() == ErrorCode.ALREADY_EXISTS ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.failedFuture(e2);
            }).thenCompose(made -> client.create(path, NodeType.FILE, placement));
        }).thenApply(node -> node.writer());
    }
}
