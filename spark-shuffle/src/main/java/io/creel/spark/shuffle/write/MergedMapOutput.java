package io.creel.spark.shuffle.write;

import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.spark.shuffle.format.BatchHeader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A map task attempt's output in the merged layout: each piece becomes a batch ({@link BatchHeader}
 * and payload) appended to the File of its partition in the lane the task borrowed, and the commit
 * publishes all of them with one request per namenode partition before the task reports its
 * {@code MapStatus}.
 *
 * <p>An attempt that fails leaves its batches where they are: the registered {@code MapStatus}
 * names another attempt (or none), so readers skip them. A run's batches are written when the run
 * ends, and the run's memory is given back only then. Not thread-safe: the map task's thread uses it.
 */
public final class MergedMapOutput implements MapOutputSink {
    private static final Logger LOG = LoggerFactory.getLogger(MergedMapOutput.class);

    private final Lanes lanes;
    private final int mapIndex;
    private final long mapId;
    private final long[] lengths;
    private final List<CompletableFuture<Void>> appends = new ArrayList<>();
    private Lane lane;
    private long written;
    private int lastPartition = -1;
    private boolean runOpen;
    private boolean finished;
    private IOException failure;

    public MergedMapOutput(Lanes lanes, int mapIndex, long mapId, int partitions) {
        this.lanes = lanes;
        this.mapIndex = mapIndex;
        this.mapId = mapId;
        this.lengths = new long[partitions];
    }

    @Override
    public void beginRun() throws IOException {
        check();
        if (runOpen) {
            throw new IllegalStateException(what() + ": a run is still open");
        }
        runOpen = true;
        lastPartition = -1;
    }

    @Override
    public OutputStream piece(int p) throws IOException {
        check();
        if (!runOpen || p <= lastPartition || p >= lengths.length) {
            throw new IllegalStateException(what() + ": piece of partition " + p + " after partition " + lastPartition
                    + (runOpen ? "" : " outside a run") + " (partitions come in increasing order, below "
                    + lengths.length + ")");
        }
        lastPartition = p;
        if (lane == null) {
            lane = lanes.borrow();
        }
        return new Batch(p);
    }

    @Override
    public void endRun() throws IOException {
        runOpen = false;
        settle("writing a run");
    }

    @Override
    public long[] commit() throws IOException {
        check();
        finished = true;
        if (lane == null) {
            return lengths.clone(); // no output: nothing to publish
        }
        settle("writing");
        try {
            Futures.awaitIo(lane.sync(), lanes.timeout(), "publishing " + what());
        } catch (IOException e) {
            throw failed(e);
        }
        lanes.giveBack(lane);
        lane = null;
        return lengths.clone();
    }

    @Override
    public void abort() {
        finished = true;
        if (lane != null) {
            lanes.giveBack(lane); // its batches stay, unread: no MapStatus names this attempt
            lane = null;
        }
    }

    @Override
    public long written() {
        return written;
    }

    /**
     * Waits for the appends issued so far. Each request behind them has its own timeout; this bound
     * grows with their number, since a lane's first task creates a File per partition (thousands of
     * requests in flight at once).
     */
    private void settle(String doing) throws IOException {
        CompletableFuture<Void> all = CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new));
        java.time.Duration bound = lanes.timeout().multipliedBy(1 + appends.size() / 500);
        appends.clear();
        try {
            Futures.awaitIo(all, bound, doing + " " + what());
        } catch (IOException e) {
            throw failed(e);
        }
    }

    private String what() {
        return "map " + mapIndex + " (attempt " + mapId + ")" + (lane == null ? "" : " in lane " + lane.name());
    }

    private void check() throws IOException {
        if (failure != null) {
            throw new IOException(what() + ": a write of this map output failed: " + failure.getMessage(), failure);
        }
        if (finished) {
            throw new IOException(what() + ": the map output is already committed or aborted");
        }
    }

    private IOException failed(IOException e) {
        if (failure == null) {
            failure = e;
            LOG.warn("writing {} failed: {}", what(), e.toString());
        }
        return e;
    }

    /** One piece: its bytes gathered after room for the header; its close appends the batch. */
    private final class Batch extends OutputStream {
        private final int partition;
        private final CRC32C crc = new CRC32C();
        private byte[] buf = new byte[BatchHeader.SIZE + 256];
        private int end = BatchHeader.SIZE;
        private boolean closed;

        Batch(int partition) {
            this.partition = partition;
        }

        @Override
        public void write(int b) throws IOException {
            ensureOpen();
            room(1);
            buf[end++] = (byte) b;
            crc.update(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ensureOpen();
            room(len);
            System.arraycopy(b, off, buf, end, len);
            end += len;
            crc.update(b, off, len);
        }

        private void room(int more) {
            if (end + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(end + more, buf.length * 2));
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            int payload = end - BatchHeader.SIZE;
            if (payload == 0) {
                return;
            }
            BatchHeader.encode(buf, 0, mapIndex, mapId, payload, (int) crc.getValue());
            try {
                appends.add(lane.append(partition, ByteBuffer.wrap(buf, 0, end)));
            } catch (CreelException e) {
                throw failed(new IOException(what() + ": " + e.getMessage(), e));
            }
            lengths[partition] += payload;
            written += payload;
        }

        private void ensureOpen() throws IOException {
            if (closed || lastPartition != partition || !runOpen) {
                throw failed(new IOException(what() + ": the piece of partition " + partition + " is closed"));
            }
            check();
        }
    }
}
