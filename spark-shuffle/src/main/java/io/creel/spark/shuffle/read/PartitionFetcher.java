package io.creel.spark.shuffle.read;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32C;
import io.creel.spark.shuffle.format.MapOutputIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;

/**
 * Reads the partitions a reduce task needs from the map output Files, in request order, keeping
 * up to {@code maxBytesInFlight} bytes of reads under way while the caller deserializes.
 *
 * <p>Per map output: open it (cached per executor, see {@link MapOutputCatalog}); the requested
 * partitions are one contiguous byte range, read as few requests: consecutive partitions are read
 * together up to {@code chunk} bytes, a partition larger than that is streamed chunk by chunk with
 * one chunk read ahead. Opening the next map outputs runs ahead of the reads
 * ({@value #OPEN_AHEAD} at a time), so lookups overlap transfers.
 *
 * <p>Every piece's CRC32C is checked against the one its map task stored in the index: whole
 * reads before the piece is handed out, chunked ones when the last chunk has been read. Any failure
 * to open or read a map output, and any checksum mismatch, surfaces as a
 * {@link FetchFailedException} naming the map, so Spark reruns it. Not thread-safe: one reduce task's thread uses it.
 */
public final class PartitionFetcher implements PieceSource {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionFetcher.class);
    /** Map outputs being opened ahead of the one being read. */
    static final int OPEN_AHEAD = 64;

    private final int shuffleId;
    private final int partitions;
    private final List<FetchRequest> requests;
    private final MapOutputCatalog catalog;
    private final long maxBytesInFlight;
    private final int chunk;
    private final Duration timeout;
    private final ShuffleReadMetricsReporter metrics;
    private final List<CompletableFuture<MapOutput>> opened = new ArrayList<>();
    private final ArrayDeque<Segment> queue = new ArrayDeque<>();
    private final ArrayDeque<FetchedPartition> ready = new ArrayDeque<>();
    private int planned;
    private long inFlight;
    private Segment current;

    public PartitionFetcher(int shuffleId, int partitions, List<FetchRequest> requests, MapOutputCatalog catalog,
                            long maxBytesInFlight, int chunk, ShuffleReadMetricsReporter metrics) {
        this.shuffleId = shuffleId;
        this.partitions = partitions;
        this.requests = requests;
        this.catalog = catalog;
        this.maxBytesInFlight = maxBytesInFlight;
        this.chunk = chunk;
        this.timeout = catalog.timeout();
        this.metrics = metrics;
    }

    /**
     * The next partition with bytes, or null when every request is read. The previous partition's
     * stream must have been consumed (its buffer is released for more reads).
     */
    @Override
    public FetchedPartition next() {
        while (ready.isEmpty()) {
            if (current != null) {
                inFlight -= current.budget;
                current = null;
            }
            openAhead();
            plan();
            if (queue.isEmpty()) {
                return null;
            }
            current = queue.poll();
            issue(current);
            issueAhead();
            current.deliver(ready);
        }
        return ready.poll();
    }

    private void openAhead() {
        int limit = Math.min(requests.size(), planned + OPEN_AHEAD);
        for (int i = opened.size(); i < limit; i++) {
            FetchRequest r = requests.get(i);
            opened.add(catalog.open(shuffleId, r.path(), partitions));
        }
    }

    /** Turns opened map outputs into segments: at least one when anything is left, more while budget allows. */
    private void plan() {
        while (planned < requests.size()) {
            CompletableFuture<MapOutput> f = opened.get(planned);
            if (!queue.isEmpty() && (!f.isDone() || queuedBytes() >= maxBytesInFlight)) {
                return;
            }
            FetchRequest r = requests.get(planned);
            MapOutput out = await(f, r, r.startPartition());
            planned++;
            openAhead();
            split(r, out);
        }
    }

    private long queuedBytes() {
        long sum = inFlight;
        for (Segment s : queue) {
            if (!s.issued) {
                sum += s.budget;
            }
        }
        return sum;
    }

    private void split(FetchRequest r, MapOutput out) {
        MapOutputIndex index = out.index();
        int end = Math.min(r.endPartition(), index.partitions());
        for (int s = 0; s < index.runs(); s++) {
            int p = r.startPartition();
            while (p < end) {
                if (index.length(s, p) == 0) {
                    p++;
                    continue;
                }
                if (index.length(s, p) > chunk) {
                    queue.add(new Segment(r, out, s, p, p + 1, 2L * chunk));
                    p++;
                    continue;
                }
                int first = p;
                long bytes = 0;
                while (p < end && bytes + index.length(s, p) <= chunk) {
                    bytes += index.length(s, p);
                    p++;
                }
                queue.add(new Segment(r, out, s, first, p, bytes));
            }
        }
    }

    private void issueAhead() {
        for (Segment s : queue) {
            if (inFlight >= maxBytesInFlight) {
                return;
            }
            if (!s.issued) {
                issue(s);
            }
        }
    }

    private void issue(Segment s) {
        if (s.issued) {
            return;
        }
        s.issued = true;
        inFlight += s.budget;
        s.start();
    }

    private MapOutput await(CompletableFuture<MapOutput> f, FetchRequest r, int partition) {
        return waitFor(f, r, partition, "opening " + r.path());
    }

    <T> T waitFor(CompletableFuture<T> f, FetchRequest r, int partition, String what) {
        long start = System.nanoTime();
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            catalog.forget(shuffleId, r.path());
            throw FetchFailures.sneaky(FetchFailures.of(shuffleId, r, partition, e.getCause()));
        } catch (TimeoutException e) {
            catalog.forget(shuffleId, r.path());
            throw FetchFailures.sneaky(FetchFailures.of(shuffleId, r, partition,
                    new IOException(what + " took longer than " + timeout.toMillis() + " ms")));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw FetchFailures.sneaky(FetchFailures.of(shuffleId, r, partition,
                    new IOException(what + " was interrupted")));
        } finally {
            metrics.incFetchWaitTime(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    /** Partitions [first, end) of one run of a map output: one read, or a chunked stream for one large partition. */
    private final class Segment {
        final FetchRequest request;
        final MapOutput out;
        final int run;
        final int first;
        final int end;
        final long budget;
        boolean issued;
        private CompletableFuture<ByteBuffer> whole;
        private ChunkedStream stream;

        Segment(FetchRequest request, MapOutput out, int run, int first, int end, long budget) {
            this.request = request;
            this.out = out;
            this.run = run;
            this.first = first;
            this.end = end;
            this.budget = budget;
        }

        private long start() {
            long from = out.index().offset(run, first);
            long bytes = out.index().end(run, end) - from;
            if (bytes > chunk) {
                stream = new ChunkedStream(this, from, bytes);
            } else {
                ByteBuffer buf = ByteBuffer.allocate((int) bytes);
                whole = out.node().read(from, buf).thenApply(n -> {
                    if (n != bytes) {
                        throw new io.creel.common.error.CreelException(io.creel.common.error.ErrorCode.INTERNAL,
                                out.path() + ": read " + n + " of " + bytes + " bytes at " + from);
                    }
                    return buf.flip();
                });
            }
            return bytes;
        }

        void deliver(ArrayDeque<FetchedPartition> sink) {
            if (stream != null) {
                metrics.incRemoteBlocksFetched(1);
                sink.add(new FetchedPartition(request, first, stream));
                return;
            }
            ByteBuffer all = waitFor(whole, request, first, "reading " + out.path());
            metrics.incRemoteBytesRead(all.remaining());
            long base = out.index().offset(run, first);
            for (int p = first; p < end; p++) {
                long len = out.index().length(run, p);
                if (len == 0) {
                    continue;
                }
                metrics.incRemoteBlocksFetched(1);
                ByteBuffer slice = all.slice((int) (out.index().offset(run, p) - base), (int) len);
                CRC32C crc = new CRC32C();
                crc.update(slice.duplicate());
                verify(this, p, (int) crc.getValue());
                sink.add(new FetchedPartition(request, p, new BufferStream(slice)));
            }
        }
    }

    /**
     * The stored checksum of a piece against the one computed over the bytes read; a mismatch fails
     * the fetch of that map, so Spark reruns it rather than use corrupted data.
     */
    private void verify(Segment s, int partition, int actual) {
        int expected = s.out.index().checksum(s.run, partition);
        if (expected == actual) {
            return;
        }
        catalog.forget(shuffleId, s.request.path());
        IOException corrupt = new IOException(String.format("checksum mismatch in run %d of partition %d: stored "
                + "CRC32C %08x, read %08x (the map output was corrupted in storage or in flight)", s.run, partition,
                expected, actual));
        LOG.warn("shuffle {} map {} (attempt {}) partition {} in {}: {}; Spark reruns the map", shuffleId,
                s.request.mapIndex(), s.request.mapId(), partition, s.request.path(), corrupt.getMessage());
        throw FetchFailures.sneaky(FetchFailures.of(shuffleId, s.request, partition, corrupt));
    }

    /**
     * One large partition, read chunk by chunk with the next chunk under way; its checksum is
     * checked when the last byte has been read ({@link #verifyRest} checks it early, reading the
     * rest, when the bytes already read would not deserialize).
     */
    final class ChunkedStream extends InputStream implements PieceSource.Checked {
        private final Segment segment;
        private final long end;
        private final CRC32C crc = new CRC32C();
        private boolean verified;
        private long next;
        private ByteBuffer current = ByteBuffer.allocate(0);
        private CompletableFuture<ByteBuffer> ahead;

        ChunkedStream(Segment segment, long from, long bytes) {
            this.segment = segment;
            this.next = from;
            this.end = from + bytes;
            this.ahead = fetch();
        }

        private CompletableFuture<ByteBuffer> fetch() {
            if (next >= end) {
                return null;
            }
            int n = (int) Math.min(chunk, end - next);
            long at = next;
            next += n;
            ByteBuffer buf = ByteBuffer.allocate(n);
            return segment.out.node().read(at, buf).thenApply(read -> {
                if (read != n) {
                    throw new io.creel.common.error.CreelException(io.creel.common.error.ErrorCode.INTERNAL,
                            segment.out.path() + ": read " + read + " of " + n + " bytes at " + at);
                }
                return buf.flip();
            });
        }

        private boolean fill() {
            if (current.hasRemaining()) {
                return true;
            }
            if (ahead == null) {
                if (!verified) {
                    verified = true;
                    verify(segment, segment.first, (int) crc.getValue());
                }
                return false;
            }
            current = waitFor(ahead, segment.request, segment.first, "reading " + segment.out.path());
            metrics.incRemoteBytesRead(current.remaining());
            crc.update(current.duplicate());
            ahead = fetch();
            return true;
        }

        /** Reads what is left and checks the piece's checksum: a mismatch throws the fetch failure. */
        @Override
        public void verifyRest() {
            while (fill()) {
                current.position(current.limit());
            }
        }

        @Override
        public int read() {
            return fill() ? current.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int n = Math.min(len, current.remaining());
            current.get(b, off, n);
            return n;
        }

        @Override
        public int available() {
            return current.remaining();
        }
    }

    /** A heap buffer as a stream. */
    static final class BufferStream extends InputStream {
        private final ByteBuffer buf;

        BufferStream(ByteBuffer buf) {
            this.buf = buf;
        }

        @Override
        public int read() {
            return buf.hasRemaining() ? buf.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (!buf.hasRemaining()) {
                return -1;
            }
            int n = Math.min(len, buf.remaining());
            buf.get(b, off, n);
            return n;
        }

        @Override
        public long skip(long n) {
            int k = (int) Math.max(0, Math.min(n, buf.remaining()));
            buf.position(buf.position() + k);
            return k;
        }

        @Override
        public int available() {
            return buf.remaining();
        }
    }
}
