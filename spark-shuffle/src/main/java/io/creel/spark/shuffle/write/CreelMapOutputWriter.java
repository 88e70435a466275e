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
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.api.ShuffleMapOutputWriter;
import org.apache.spark.shuffle.api.ShufflePartitionWriter;
import org.apache.spark.shuffle.api.metadata.MapOutputCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one map task attempt's output as one Creel File: every partition's bytes back to back,
 * then the {@link MapOutputIndex}. Spark asks for partition writers in increasing partition order,
 * so the File is a single sequential append.
 *
 * <p>Commit protocol: the File is created on the first byte (a map task with no output creates
 * nothing: all its sizes are 0, so no reducer asks for it) and published by the close in
 * {@link #commitAllPartitions}, before the task reports its {@code MapStatus}. Reducers only open
 * files named by a registered {@code MapStatus}, so a failed or killed attempt's partial file is
 * never read; {@link #abort} deletes it, and the shuffle's directory removal takes what a killed
 * JVM left.
 */
public final class CreelMapOutputWriter implements ShuffleMapOutputWriter {
    private static final Logger LOG = LoggerFactory.getLogger(CreelMapOutputWriter.class);

    private final CreelClient client;
    private final String path;
    private final CreateOptions placement;
    private final Duration timeout;
    private final ShuffleWriteMetricsReporter metrics;
    private final long[] lengths;
    private int lastPartition = -1;
    private CreelNode node;
    private OutputStream out;
    private long written;
    private boolean finished;
    private boolean committed;
    private boolean aborted;
    /** The first write failure; once set, the writer can only fail. */
    private IOException failure;

    public CreelMapOutputWriter(CreelClient client, String path, int partitions, CreateOptions placement,
                                Duration timeout, ShuffleWriteMetricsReporter metrics) {
        this.client = client;
        this.path = path;
        this.placement = placement;
        this.timeout = timeout;
        this.metrics = metrics;
        this.lengths = new long[partitions];
    }

    @Override
    public ShufflePartitionWriter getPartitionWriter(int reducePartitionId) throws IOException {
        if (finished) {
            throw new IOException(path + ": the map output is already committed or aborted");
        }
        if (reducePartitionId <= lastPartition || reducePartitionId >= lengths.length) {
            throw new IOException(path + ": partition " + reducePartitionId + " requested after partition "
                    + lastPartition + " (partitions must come in increasing order, below " + lengths.length + ")");
        }
        lastPartition = reducePartitionId;
        return new PartitionWriter(reducePartitionId);
    }

    @Override
    public MapOutputCommitMessage commitAllPartitions(long[] checksums) throws IOException {
        if (finished) {
            throw new IOException(path + ": the map output is already committed or aborted");
        }
        finished = true;
        if (failure != null) {
            // A writer that saw a failure can only fail: Spark's writers may go on to commit after a
            // partition's stream failed, and committing then would publish lengths over missing bytes.
            throw new IOException(path + ": not committed, a write of this map output failed: " + failure.getMessage(),
                    failure);
        }
        if (out == null) {
            committed = true;
            return MapOutputCommitMessage.of(lengths.clone());
        }
        long start = System.nanoTime();
        ByteBuffer index = MapOutputIndex.ofLengths(lengths).encode();
        out.write(index.array(), index.arrayOffset(), index.remaining());
        out.close(); // publishes the File: its committed length now covers every partition and the index
        committed = true;
        metrics.incWriteTime(System.nanoTime() - start);
        return MapOutputCommitMessage.of(lengths.clone());
    }

    @Override
    public void abort(Throwable error) {
        finished = true;
        if (node == null || committed || aborted) {
            return;
        }
        aborted = true;
        out = null; // its buffers in flight fail against the deleted File; nothing more is sent
        try {
            Futures.await(client.delete(path, false), timeout, "deleting " + path);
        } catch (CreelException e) {
            // The shuffle's directory is removed with the shuffle; this file goes then.
            LOG.warn("could not delete the aborted map output {} ({}); it goes when its shuffle is removed", path,
                    e.getMessage());
        }
    }

    /**
     * Logs a write failure before Spark sees it: Spark's serialized writer checks an assertion in a
     * finally block that, with assertions on, replaces the exception that got it there.
     */
    private IOException logged(IOException e) {
        if (failure == null) {
            failure = e;
            LOG.warn("writing the map output {} failed: {}", path, e.toString());
        }
        return e;
    }

    /** Deletes the file unless it was committed (the task failed or was killed before commit). */
    void abortIfUncommitted() {
        if (!committed) {
            abort(new IllegalStateException("the task ended before its map output was committed"));
        }
    }

    /** Bytes appended so far (data only). */
    long written() {
        return written;
    }

    private OutputStream stream() throws IOException {
        if (out == null) {
            try {
                node = Futures.await(client.create(path, NodeType.FILE, placement), timeout, "creating " + path);
            } catch (CreelException e) {
                throw logged(new IOException("cannot create the map output " + path + ": " + e.getMessage(), e));
            }
            out = node.outputStream();
        }
        return out;
    }

    /** One partition's bytes; its stream's close ends the partition, not the File. */
    private final class PartitionWriter implements ShufflePartitionWriter {
        private final int partition;
        private long bytes;

        PartitionWriter(int partition) {
            this.partition = partition;
        }

        @Override
        public OutputStream openStream() {
            return new OutputStream() {
                private boolean closed;

                @Override
                public void write(int b) throws IOException {
                    check();
                    try {
                        stream().write(b);
                    } catch (IOException e) {
                        throw logged(e);
                    }
                    count(1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    check();
                    try {
                        stream().write(b, off, len);
                    } catch (IOException e) {
                        throw logged(e);
                    }
                    count(len);
                }

                @Override
                public void close() {
                    closed = true;
                }

                private void check() throws IOException {
                    if (closed || finished || lastPartition != partition) {
                        throw logged(new IOException(path + ": partition " + partition + "'s stream is closed"));
                    }
                }
            };
        }

        private void count(long n) {
            bytes += n;
            lengths[partition] += n;
            written += n;
        }

        @Override
        public long getNumBytesWritten() {
            return bytes;
        }
    }
}
