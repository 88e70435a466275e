package io.creel.spark.shuffle.write;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.namespace.NodeType;
import io.creel.spark.shuffle.format.MapOutputIndex;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One map task attempt's output File in Creel, written as runs (see {@link MapOutputIndex}): each
 * flush of the task's buffer is a run of partition pieces in increasing partition order, and the
 * commit appends the index and publishes the File.
 *
 * <p>Commit protocol: the File is created on the first piece (a map task with no output creates
 * nothing: its sizes are all 0, so no reducer asks for it) and published by the close in
 * {@link #commit}, before the task reports its {@code MapStatus}. Reducers only open files named by
 * a registered {@code MapStatus}, so a failed or killed attempt's partial file is never read;
 * {@link #abort} deletes it, and the shuffle's directory removal takes what a killed JVM left.
 *
 * <p>Every piece's bytes go from the task's memory into the File: nothing is staged on a local
 * disk. Not thread-safe: the map task's thread uses it.
 */
public final class MapOutputFile implements MapOutputSink {
    private static final Logger LOG = LoggerFactory.getLogger(MapOutputFile.class);

    private final CreelClient client;
    private final String path;
    private final int partitions;
    private final CreateOptions placement;
    private final Duration timeout;
    private final List<long[]> runLengths = new ArrayList<>();
    private final List<int[]> runChecksums = new ArrayList<>();
    private CreelNode node;
    private OutputStream out;
    private long written;
    private int lastPartition = -1;
    private boolean runOpen;
    private boolean finished;
    private boolean committed;
    /** The first write failure; once set, the file can only be aborted. */
    private IOException failure;

    /**
     * The File a map task attempt writes at {@code path}: created on its first byte with
     * {@code placement}, every wait on Creel bounded by {@code timeout}.
     */
    public MapOutputFile(CreelClient client, String path, int partitions, CreateOptions placement, Duration timeout) {
        this.client = client;
        this.path = path;
        this.partitions = partitions;
        this.placement = placement;
        this.timeout = timeout;
    }

    /** The File's path in Creel. */
    public String path() {
        return path;
    }

    /** Starts a run: the pieces that follow, in increasing partition order, are one flush of the buffer. */
    @Override
    public void beginRun() throws IOException {
        check();
        if (runOpen) {
            throw new IllegalStateException(path + ": run " + (runLengths.size() - 1) + " is still open");
        }
        runLengths.add(new long[partitions]);
        runChecksums.add(new int[partitions]);
        runOpen = true;
        lastPartition = -1;
    }

    /**
     * The stream of partition {@code p}'s piece in the current run: it counts and checksums what
     * goes through it, and its close ends the piece, not the File.
     */
    @Override
    public OutputStream piece(int p) throws IOException {
        check();
        if (!runOpen || p <= lastPartition || p >= partitions) {
            throw new IllegalStateException(path + ": piece of partition " + p + " after partition " + lastPartition
                    + (runOpen ? "" : " outside a run") + " (partitions come in increasing order, below "
                    + partitions + ")");
        }
        lastPartition = p;
        return new Piece(p, stream());
    }

    /** Ends the current run. */
    @Override
    public void endRun() {
        runOpen = false;
    }

    /** Runs written so far. */
    public int runs() {
        return runLengths.size();
    }

    /** Bytes of partition data written so far. */
    @Override
    public long written() {
        return written;
    }

    /**
     * Appends the index and publishes the File; returns every partition's length over all runs
     * (what the {@code MapStatus} reports).
     */
    @Override
    public long[] commit() throws IOException {
        check();
        finished = true;
        long[] lengths = new long[partitions];
        for (long[] run : runLengths) {
            for (int p = 0; p < partitions; p++) {
                lengths[p] += run[p];
            }
        }
        if (out == null) {
            committed = true;
            return lengths;
        }
        ByteBuffer index = MapOutputIndex.of(runLengths.toArray(new long[0][]), runChecksums.toArray(new int[0][]))
                .encode();
        try {
            out.write(index.array(), index.arrayOffset(), index.remaining());
            out.close(); // publishes the File: its committed length now covers every run and the index
        } catch (IOException e) {
            throw failed(e);
        }
        committed = true;
        return lengths;
    }

    /** Deletes the File unless it was committed (the task failed or was killed before its commit). */
    @Override
    public void abort() {
        finished = true;
        if (node == null || committed) {
            return;
        }
        committed = true; // nothing more to undo
        out = null; // its buffers in flight fail against the deleted File; nothing more is sent
        try {
            Futures.await(client.delete(path, false), timeout, "deleting " + path);
        } catch (CreelException e) {
            LOG.warn("could not delete the aborted map output {} ({}); it goes when its shuffle is removed", path,
                    e.getMessage());
        }
    }

    private void check() throws IOException {
        if (failure != null) {
            throw new IOException(path + ": a write of this map output failed: " + failure.getMessage(), failure);
        }
        if (finished) {
            throw new IOException(path + ": the map output is already committed or aborted");
        }
    }

    /** Records the first failure (logged once: Spark may replace it with a later one) and returns it. */
    private IOException failed(IOException e) {
        if (failure == null) {
            failure = e;
            LOG.warn("writing the map output {} failed: {}", path, e.toString());
        }
        return e;
    }

    private OutputStream stream() throws IOException {
        if (out == null) {
            try {
                node = Futures.await(client.create(path, NodeType.FILE, placement), timeout, "creating " + path);
            } catch (CreelException e) {
                throw failed(new IOException("cannot create the map output " + path + ": " + e.getMessage(), e));
            }
            out = node.outputStream();
        }
        return out;
    }

    private final class Piece extends OutputStream {
        private final int partition;
        private final OutputStream target;
        private final CRC32C crc = new CRC32C();
        private long bytes;
        private boolean closed;

        Piece(int partition, OutputStream target) {
            this.partition = partition;
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            ensureOpen();
            try {
                target.write(b);
            } catch (IOException e) {
                throw failed(e);
            }
            crc.update(b);
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ensureOpen();
            try {
                target.write(b, off, len);
            } catch (IOException e) {
                throw failed(e);
            }
            crc.update(b, off, len);
            bytes += len;
        }

        /** Ends the piece: records its length and checksum in the run. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            int run = runLengths.size() - 1;
            runLengths.get(run)[partition] = bytes;
            runChecksums.get(run)[partition] = (int) crc.getValue();
            written += bytes;
        }

        private void ensureOpen() throws IOException {
            if (closed || lastPartition != partition || !runOpen) {
                throw failed(new IOException(path + ": the piece of partition " + partition + " is closed"));
            }
            check();
        }
    }
}
