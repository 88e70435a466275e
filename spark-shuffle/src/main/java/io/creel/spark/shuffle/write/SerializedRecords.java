package io.creel.spark.shuffle.write;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A map task's records in serialized form, grouped by partition only when they are written out.
 * Records are appended to fixed-size heap pages as the serializer writes them; per record the
 * buffer keeps its partition and where it starts (12 bytes), and a counting sort by partition puts
 * them in order at {@link #writeTo}. Used when the serializer can relocate serialized records
 * (Kryo, Spark SQL's row serializer): records of one partition can then be concatenated and read
 * back as one stream.
 *
 * <p>The pages are requested from a {@link PageBudget} so the task's memory manager sees them.
 * Not thread-safe.
 */
final class SerializedRecords extends OutputStream {
    static final int PAGE_SHIFT = 18;
    static final int PAGE_SIZE = 1 << PAGE_SHIFT; // 256 KiB

    /** Memory accounting for the pages and the record table. */
    interface PageBudget {
        /** Accounts {@code bytes} more; returns false when the task should flush as soon as the record is complete. */
        boolean grow(long bytes);
    }

    private final int partitions;
    private final PageBudget budget;
    private final List<byte[]> pages = new ArrayList<>();
    private long position;
    private int[] partitionOf = new int[1024];
    private long[] starts = new long[1025];
    private int count;
    private int current = -1;
    private boolean short_;

    SerializedRecords(int partitions, PageBudget budget) {
        this.partitions = partitions;
        this.budget = budget;
    }

    /** Starts a record of partition {@code p}; the serializer's bytes up to {@link #endRecord} are its. */
    void beginRecord(int p) {
        if (p < 0 || p >= partitions) {
            throw new IllegalArgumentException("partition " + p + " is not in [0, " + partitions + ")");
        }
        if (count == partitionOf.length) {
            int grown = partitionOf.length * 2;
            if (!budget.grow(12L * (grown - partitionOf.length))) {
                short_ = true;
            }
            partitionOf = Arrays.copyOf(partitionOf, grown);
            starts = Arrays.copyOf(starts, grown + 1);
        }
        partitionOf[count] = p;
        starts[count] = position;
        current = p;
    }

    /** Ends the record begun last; returns true when the buffer should be flushed now. */
    boolean endRecord() {
        current = -1;
        count++;
        starts[count] = position;
        return short_;
    }

    /** Records buffered. */
    int records() {
        return count;
    }

    /** Bytes of serialized records buffered. */
    long bytes() {
        return position;
    }

    boolean isEmpty() {
        return count == 0;
    }

    @Override
    public void write(int b) {
        byte[] page = pageFor(position);
        page[(int) (position & (PAGE_SIZE - 1))] = (byte) b;
        position++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        while (len > 0) {
            byte[] page = pageFor(position);
            int at = (int) (position & (PAGE_SIZE - 1));
            int n = Math.min(len, PAGE_SIZE - at);
            System.arraycopy(b, off, page, at, n);
            position += n;
            off += n;
            len -= n;
        }
    }

    private byte[] pageFor(long pos) {
        if (current < 0) {
            throw new IllegalStateException("serialized bytes outside a record");
        }
        int index = (int) (pos >>> PAGE_SHIFT);
        while (index >= pages.size()) {
            if (!budget.grow(PAGE_SIZE)) {
                short_ = true;
            }
            pages.add(new byte[PAGE_SIZE]);
        }
        return pages.get(index);
    }

    /**
     * Writes every record, partition by partition in increasing order, through {@code sink}; then
     * empties the buffer (its pages are dropped for the GC; the caller gives their memory back).
     */
    void writeTo(PieceSink sink) throws IOException {
        int[] firstOf = new int[partitions + 1];
        for (int i = 0; i < count; i++) {
            firstOf[partitionOf[i] + 1]++;
        }
        for (int p = 0; p < partitions; p++) {
            firstOf[p + 1] += firstOf[p];
        }
        int[] order = new int[count];
        int[] next = Arrays.copyOf(firstOf, partitions);
        for (int i = 0; i < count; i++) {
            order[next[partitionOf[i]]++] = i;
        }
        for (int p = 0; p < partitions; p++) {
            if (firstOf[p] == firstOf[p + 1]) {
                continue;
            }
            OutputStream out = sink.open(p);
            for (int k = firstOf[p]; k < firstOf[p + 1]; k++) {
                int r = order[k];
                copy(starts[r], starts[r + 1], out);
            }
            sink.close(p, out, firstOf[p + 1] - firstOf[p]);
        }
        clear();
    }

    private void copy(long from, long to, OutputStream out) throws IOException {
        while (from < to) {
            byte[] page = pages.get((int) (from >>> PAGE_SHIFT));
            int at = (int) (from & (PAGE_SIZE - 1));
            int n = (int) Math.min(to - from, PAGE_SIZE - at);
            out.write(page, at, n);
            from += n;
        }
    }

    /** Drops every record. */
    void clear() {
        pages.clear();
        position = 0;
        count = 0;
        starts[0] = 0;
        short_ = false;
        if (partitionOf.length > 1024) {
            partitionOf = new int[1024];
            starts = new long[1025];
        }
    }

    /** Where {@link #writeTo} sends each partition's records. */
    interface PieceSink {
        /** The stream for partition {@code p}'s records (serialized bytes, to be compressed and stored). */
        OutputStream open(int p) throws IOException;

        /** Partition {@code p}'s {@code records} records went through {@code out}. */
        void close(int p, OutputStream out, long records) throws IOException;
    }
}
