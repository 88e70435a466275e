package io.creel.spark.shuffle.read;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.spark.shuffle.format.BatchHeader;
import io.creel.spark.shuffle.format.CorruptMapOutputException;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a reduce task's partitions in the merged layout: for each partition, the Files of its Bag
 * (one per lane that wrote to it), each as one sequential stream of batches. A batch is delivered if
 * its map attempt is the one registered for its map index within the task's map range, and skipped
 * otherwise (another attempt's, or a map outside a skew split's range).
 *
 * <p>Every registered map with bytes for a partition must have a batch there; one that has none
 * (its lane's File lost with a storage server, say), a File that cannot be read, and a batch whose
 * checksum does not match, all throw {@link FetchFailedException} for a map, so Spark reruns it. A
 * failed read of a lane's File names a map of that lane's executor, whose outputs Spark then
 * reruns together.
 */
final class MergedFetcher implements PieceSource {
    private static final Logger LOG = LoggerFactory.getLogger(MergedFetcher.class);

    /** A registered map output a reduce task reads: its attempt, where Spark thinks it is. */
    record Expected(int mapIndex, long mapId, org.apache.spark.storage.BlockManagerId location) {
    }

    private final CreelClient client;
    private final Duration timeout;
    private final int shuffleId;
    private final String shuffleDir;
    private final int bufferSize;
    private final ShuffleReadMetricsReporter metrics;
    /** Per partition to read, in order: the maps with bytes there, by map index. */
    private final Deque<Map.Entry<Integer, Map<Integer, Expected>>> partitions;
    private Map<Integer, Expected> expected = Collections.emptyMap();
    private int partition = -1;
    /** The maps of the current partition a batch was delivered of, and the File it was in. */
    private final Map<Integer, String> seen = new java.util.HashMap<>();
    /** The current partition's Files that could not be read (all or to their end), and why. */
    private final Map<String, Throwable> lost = new java.util.LinkedHashMap<>();
    private final Deque<DirectoryEntry> files = new ArrayDeque<>();
    private String file;
    private InputStream in;
    private BatchStream current;
    private final byte[] header = new byte[BatchHeader.SIZE];

    /**
     * @param expected for each partition to read (in increasing order), the maps with bytes there
     */
    MergedFetcher(CreelClient client, Duration timeout, int shuffleId, String shuffleDir,
                  TreeMap<Integer, Map<Integer, Expected>> expected, int bufferSize, ShuffleReadMetricsReporter metrics) {
        this.client = client;
        this.timeout = timeout;
        this.shuffleId = shuffleId;
        this.shuffleDir = shuffleDir;
        this.partitions = new ArrayDeque<>(expected.entrySet());
        this.bufferSize = bufferSize;
        this.metrics = metrics;
    }

    @Override
    public FetchedPartition next() {
        if (current != null) {
            current.verifyRest();
            current = null;
        }
        while (true) {
            if (in == null && !openNextFile()) {
                if (!nextPartition()) {
                    return null;
                }
                continue;
            }
            long start = System.nanoTime();
            try {
                if (!readHeader()) {
                    closeFile();
                    continue;
                }
            } catch (IOException | CreelException | CorruptMapOutputException e) {
                lose(e);
                continue;
            } finally {
                metrics.incFetchWaitTime(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            int mapIndex = BatchHeader.mapIndex(header, 0);
            long mapId = BatchHeader.mapId(header, 0);
            int length = BatchHeader.length(header, 0);
            Expected e = expected.get(mapIndex);
            if (e == null || e.mapId() != mapId) {
                skip(length);
                continue;
            }
            seen.put(mapIndex, file);
            metrics.incRemoteBlocksFetched(1);
            current = new BatchStream(e, length, BatchHeader.payloadCrc(header, 0));
            return new FetchedPartition(new FetchRequest(mapId, mapIndex, e.location(), file, partition, partition + 1),
                    partition, current);
        }
    }

    /** Moves to the next partition to read (after checking the last one had every map); false at the end. */
    private boolean nextPartition() {
        checkComplete();
        Map.Entry<Integer, Map<Integer, Expected>> next = partitions.pollFirst();
        if (next == null) {
            return false;
        }
        partition = next.getKey();
        expected = next.getValue();
        seen.clear();
        lost.clear();
        String bag = ShufflePaths.partitionBag(shuffleDir, partition);
        try {
            files.addAll(Futures.await(client.list(bag), timeout, "listing " + bag));
        } catch (CreelException e) {
            if (e.code() != ErrorCode.NOT_FOUND) {
                throw FetchFailures.sneaky(failure(anyExpected(), "cannot list " + bag + ": " + e.getMessage(), e));
            }
        }
        return true;
    }

    /**
     * Every map registered with bytes for the partition just read had its batches there, in Files
     * read to their end. A File that could not be read fails only the maps it may hold: an attempt
     * writes all its batches of a partition into one File, so a map found whole in another File
     * cannot have any in it (what is there belongs to attempts nobody registered).
     */
    private void checkComplete() {
        String unreadable = lost.isEmpty() ? "" : "; unreadable: " + lost.entrySet().stream()
                .map(l -> l.getKey() + " (" + why(l.getValue()) + ")").collect(java.util.stream.Collectors.joining(", "));
        for (Expected e : expected.values()) {
            String in = seen.get(e.mapIndex());
            if (in == null) {
                throw FetchFailures.sneaky(failure(e, "no batch of it in "
                        + ShufflePaths.partitionBag(shuffleDir, partition) + unreadable, lost.get(firstLost())));
            }
            if (lost.containsKey(in)) {
                throw FetchFailures.sneaky(failure(e, "cannot read " + in + " to its end: " + why(lost.get(in)),
                        lost.get(in)));
            }
        }
    }

    private String firstLost() {
        return lost.isEmpty() ? null : lost.keySet().iterator().next();
    }

    private static String why(Throwable t) {
        return t instanceof CreelException || t instanceof CorruptMapOutputException ? t.getMessage() : t.toString();
    }

    /** The current File cannot be read on: noted, and the partition goes on with its other Files. */
    private void lose(Throwable t) {
        LOG.warn("shuffle {} partition {}: cannot read {}: {}", shuffleId, partition, file, why(t));
        lost.put(file, t);
        closeFile();
    }

    private boolean openNextFile() {
        DirectoryEntry f = files.pollFirst();
        if (f == null) {
            return false;
        }
        file = f.path();
        try {
            io.creel.client.CreelNode node = client.open(f);
            // A small File is read in one buffer of its size; a large one in buffers of the read chunk, one ahead.
            int buffer = (int) Math.max(4096, Math.min(bufferSize, node.length()));
            in = new io.creel.client.io.NodeInputStream(node.reader(), buffer, timeout);
        } catch (CreelException e) {
            lost.put(file, e);
            in = null;
        }
        return true;
    }

    private void closeFile() {
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                LOG.debug("closing {}: {}", file, e.toString());
            }
        }
        in = null;
    }

    /** Reads the next header; false at the File's end (a File ends after a whole batch). */
    private boolean readHeader() throws IOException {
        int n = in.readNBytes(header, 0, BatchHeader.SIZE);
        if (n == 0) {
            return false;
        }
        if (n < BatchHeader.SIZE) {
            throw new CorruptMapOutputException(file + ": " + n + " bytes after the last batch");
        }
        BatchHeader.check(header, 0, file);
        metrics.incRemoteBytesRead(BatchHeader.SIZE);
        return true;
    }

    private void skip(int length) {
        try {
            in.skipNBytes(length);
        } catch (IOException | CreelException e) {
            lose(e);
        }
    }

    /** A map of the partition to name when the partition itself cannot be listed. */
    private Expected anyExpected() {
        return expected.isEmpty() ? null : expected.values().iterator().next();
    }

    private FetchFailedException failure(Expected e, String why, Throwable cause) {
        if (e == null) {
            // Nothing registered has bytes here: no map to rerun, so this cannot be a fetch failure.
            throw new IllegalStateException("shuffle " + shuffleId + " partition " + partition + ": " + why, cause);
        }
        LOG.warn("shuffle {} partition {}: map {} (attempt {}): {}; Spark reruns the map", shuffleId, partition,
                e.mapIndex(), e.mapId(), why);
        return new FetchFailedException(e.location(), shuffleId, e.mapId(), e.mapIndex(), partition,
                "cannot read shuffle " + shuffleId + " map " + e.mapIndex() + " (attempt " + e.mapId() + ") partition "
                        + partition + " from Creel: " + why, cause);
    }

    /** One batch's payload from the File's stream; its checksum is checked at its end. */
    private final class BatchStream extends InputStream implements PieceSource.Checked {
        private final Expected map;
        private final int expectedCrc;
        private final CRC32C crc = new CRC32C();
        private int left;
        private boolean verified;

        BatchStream(Expected map, int length, int expectedCrc) {
            this.map = map;
            this.left = length;
            this.expectedCrc = expectedCrc;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left == 0) {
                verify();
                return -1;
            }
            int n;
            try {
                n = in.read(b, off, Math.min(len, left));
                if (n < 0) {
                    throw new EOFException(left + " bytes of the batch are missing");
                }
            } catch (IOException | CreelException e) {
                String where = file;
                closeFile();
                throw FetchFailures.sneaky(failure(map, "cannot read " + where + ": " + why(e), e));
            }
            crc.update(b, off, n);
            left -= n;
            metrics.incRemoteBytesRead(n);
            if (left == 0) {
                verify();
            }
            return n;
        }

        @Override
        public int available() {
            return 0;
        }

        @Override
        public void verifyRest() {
            byte[] sink = new byte[8192];
            while (left > 0) {
                read(sink, 0, sink.length);
            }
            verify();
        }

        private void verify() {
            if (verified) {
                return;
            }
            verified = true;
            int actual = (int) crc.getValue();
            if (actual != expectedCrc) {
                closeFile();
                throw FetchFailures.sneaky(failure(map, "checksum mismatch in " + file + ": CRC32C "
                        + Integer.toHexString(actual) + ", the batch header says " + Integer.toHexString(expectedCrc),
                        null));
            }
        }
    }
}
