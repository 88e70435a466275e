package io.creel.client.io;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * All files of a Bag, in listing order, read as one asynchronous stream. Files are read in units
 * (a whole small file, or a chunk of a large one) with a fixed number of units in flight at once,
 * so reading many small files is limited by throughput rather than by round trips, and memory
 * stays bounded (in-flight units times the chunk size).
 *
 * <p>Reads must be issued one after another (wait for a read's future before the next).
 */
public final class BagReader {
    private final CreelClient client;
    private final CompletableFuture<List<DirectoryEntry>> listing;
    private final int inFlight;
    private final int chunkSize;
    private final ArrayDeque<CompletableFuture<ByteBuffer>> window = new ArrayDeque<>();
    private int nextEntry;
    private long nextOffset;
    private long bytesRead;

    /**
     * @param listing   the Bag's files, in the order to read them
     * @param inFlight  units read at once
     * @param chunkSize largest unit
     */
    public BagReader(CreelClient client, CompletableFuture<List<DirectoryEntry>> listing, int inFlight, int chunkSize) {
        this.client = client;
        this.listing = listing;
        this.inFlight = Math.max(1, inFlight);
        this.chunkSize = chunkSize;
    }

    /** Bytes delivered so far. */
    public synchronized long bytesRead() {
        return bytesRead;
    }

    /**
     * Copies the next bytes into {@code dst}.
     *
     * @return bytes copied, -1 after the last file (0 only when {@code dst} has no room)
     */
    public CompletableFuture<Integer> read(ByteBuffer dst) {
        if (!dst.hasRemaining()) {
            return CompletableFuture.completedFuture(0);
        }
        return Futures.clean(listing.thenCompose(entries -> next(entries, dst)));
    }

    private CompletableFuture<Integer> next(List<DirectoryEntry> entries, ByteBuffer dst) {
        CompletableFuture<ByteBuffer> head;
        synchronized (this) {
            refill(entries);
            head = window.peekFirst();
        }
        if (head == null) {
            return CompletableFuture.completedFuture(-1);
        }
        return head.thenApply(buf -> {
            synchronized (this) {
                int n = Math.min(buf.remaining(), dst.remaining());
                dst.put(dst.position(), buf, buf.position(), n);
                dst.position(dst.position() + n);
                buf.position(buf.position() + n);
                bytesRead += n;
                if (!buf.hasRemaining()) {
                    window.pollFirst();
                    refill(entries);
                }
                return n;
            }
        });
    }

    /** Starts unit reads until {@code inFlight} are outstanding or all are started. */
    private void refill(List<DirectoryEntry> entries) {
        while (window.size() < inFlight && nextEntry < entries.size()) {
            DirectoryEntry e = entries.get(nextEntry);
            long length = e.info().length();
            if (nextOffset >= length) {
                nextEntry++;
                nextOffset = 0;
                continue;
            }
            int size = (int) Math.min(chunkSize, length - nextOffset);
            ByteBuffer buf = ByteBuffer.allocate(size);
            long at = nextOffset;
            window.addLast(Futures.guard(() -> client.open(e).read(at, buf)).thenApply(n -> buf.flip()));
            nextOffset += size;
        }
    }
}
