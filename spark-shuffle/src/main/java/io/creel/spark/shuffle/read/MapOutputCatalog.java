package io.creel.spark.shuffle.read;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.spark.shuffle.format.CorruptMapOutputException;
import io.creel.spark.shuffle.format.MapOutputIndex;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * An executor's open map outputs: each committed map output is looked up and its index read once
 * per executor, then shared by every reduce task there. Without this every reduce task would ask
 * the namenode about every map output (M x R lookups); with it a shuffle costs M lookups per
 * executor. Map outputs never change once committed, and a rerun map writes a new file (a new
 * attempt id), so a cached entry is never stale; entries go when their shuffle is unregistered,
 * when a read of them fails, or least recently used first beyond the byte budget.
 */
public final class MapOutputCatalog {
    private final CreelClient client;
    private final long capacityBytes;
    private final Duration timeout;
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(256, 0.75f, true);
    private long cachedBytes;

    private record Key(int shuffleId, String path) {
    }

    private record Entry(CompletableFuture<MapOutput> output, long bytes) {
    }

    public MapOutputCatalog(CreelClient client, long capacityBytes, Duration timeout) {
        this.client = client;
        this.capacityBytes = capacityBytes;
        this.timeout = timeout;
    }

    /** The client map outputs are read with. */
    public CreelClient client() {
        return client;
    }

    public Duration timeout() {
        return timeout;
    }

    /** The map output at {@code path} of a shuffle with {@code partitions} reduce partitions. */
    public CompletableFuture<MapOutput> open(int shuffleId, String path, int partitions) {
        Key key = new Key(shuffleId, path);
        CompletableFuture<MapOutput> f;
        synchronized (this) {
            Entry e = entries.get(key);
            if (e != null) {
                return e.output();
            }
            f = new CompletableFuture<>();
            long bytes = MapOutputIndex.encodedSize(partitions, 1) + 256L; // more runs are rare
            entries.put(key, new Entry(f, bytes));
            cachedBytes += bytes;
            evictBeyondCapacity();
        }
        load(path, partitions).whenComplete((out, t) -> {
            if (t != null) {
                forget(key, f);
                f.completeExceptionally(t);
            } else {
                f.complete(out);
            }
        });
        return f;
    }

    /**
     * Looks the File up and reads its index: one read of the size a single-run index takes (the
     * usual case), a second one when the trailer says the map task wrote more runs.
     */
    private CompletableFuture<MapOutput> load(String path, int partitions) {
        return Futures.guard(() -> client.lookup(path).thenCompose(node -> {
            long length = node.length();
            int guess = (int) Math.min(length, MapOutputIndex.encodedSize(partitions, 1));
            if (guess < MapOutputIndex.TRAILER) {
                throw new CorruptMapOutputException(path + ": " + length + " bytes cannot hold a map output index");
            }
            return readTail(node, path, guess).thenCompose(tail -> {
                int size = MapOutputIndex.encodedSize(partitions, MapOutputIndex.runsOf(tail, partitions, path));
                if (size > length) {
                    throw new CorruptMapOutputException(path + ": " + length + " bytes cannot hold its index of "
                            + size + " bytes");
                }
                CompletableFuture<ByteBuffer> whole = size == tail.remaining()
                        ? CompletableFuture.completedFuture(tail) : readTail(node, path, size);
                return whole.thenApply(b -> new MapOutput(path, node, MapOutputIndex.decode(b, partitions, length,
                        path)));
            });
        }));
    }

    private static CompletableFuture<ByteBuffer> readTail(CreelNode node, String path, int size) {
        ByteBuffer buf = ByteBuffer.allocate(size);
        return node.read(node.length() - size, buf).thenApply(n -> {
            if (n != size) {
                throw new CorruptMapOutputException(path + ": read " + n + " of the index's " + size + " bytes");
            }
            return buf.flip();
        });
    }

    /** Drops a map output whose read failed, so a rerun reads afresh. */
    public void forget(int shuffleId, String path) {
        synchronized (this) {
            Entry e = entries.remove(new Key(shuffleId, path));
            if (e != null) {
                cachedBytes -= e.bytes();
            }
        }
    }

    private synchronized void forget(Key key, CompletableFuture<MapOutput> f) {
        Entry e = entries.get(key);
        if (e != null && e.output() == f) {
            entries.remove(key);
            cachedBytes -= e.bytes();
        }
    }

    /** Drops every map output of a shuffle. */
    public synchronized void forget(int shuffleId) {
        Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, Entry> e = it.next();
            if (e.getKey().shuffleId() == shuffleId) {
                cachedBytes -= e.getValue().bytes();
                it.remove();
            }
        }
    }

    /** Map outputs held. */
    public synchronized int size() {
        return entries.size();
    }

    private void evictBeyondCapacity() {
        Iterator<Map.Entry<Key, Entry>> it = entries.entrySet().iterator();
        while (cachedBytes > capacityBytes && entries.size() > 1 && it.hasNext()) {
            Map.Entry<Key, Entry> e = it.next();
            if (!e.getValue().output().isDone()) {
                continue; // a reader is waiting for it
            }
            cachedBytes -= e.getValue().bytes();
            it.remove();
        }
    }
}
