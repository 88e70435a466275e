package io.creel.spark.shuffle.read;

import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.CreelShuffleHandle;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.Aggregator;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.serializer.SerializerManager;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * Reads a reduce task's partitions {@code [startPartition, endPartition)} of the map outputs
 * {@code [startMapIndex, endMapIndex)} from Creel, then combines and sorts them exactly as Spark's
 * own reader does: {@code combineCombinersByKey} after a map-side combine, else
 * {@code combineValuesByKey}; with a key ordering, through Spark's spilling {@link ExternalSorter}.
 *
 * <p>Which attempt of each map is read is decided by the driver: the reader asks Spark's map output
 * tracker for the registered {@code MapStatus}es, whose map ids are task attempt ids, and reads
 * exactly those attempts' files. A failed attempt never registers a status, and a map has one
 * registered status at a time, so a reader never sees a partial output or two attempts of one map.
 * The partition sizes in a MapStatus only say which partitions are empty (they may be compressed
 * estimates); the exact ranges, and each piece's checksum, come from each file's index.
 */
public final class CreelShuffleReader<K, C> implements ShuffleReader<K, C> {
    private final CreelShuffleHandle<K, ?, C> handle;
    private final int startMapIndex;
    private final int endMapIndex;
    private final int startPartition;
    private final int endPartition;
    private final TaskContext context;
    private final ShuffleReadMetricsReporter metrics;
    private final MapOutputCatalog catalog;
    private final SparkCreelConf settings;

    public CreelShuffleReader(CreelShuffleHandle<K, ?, C> handle, int startMapIndex, int endMapIndex,
                              int startPartition, int endPartition, TaskContext context,
                              ShuffleReadMetricsReporter metrics, MapOutputCatalog catalog, SparkCreelConf settings) {
        this.handle = handle;
        this.startMapIndex = startMapIndex;
        this.endMapIndex = endMapIndex;
        this.startPartition = startPartition;
        this.endPartition = endPartition;
        this.context = context;
        this.metrics = metrics;
        this.catalog = catalog;
        this.settings = settings;
    }

    /** One registered block this task reads: a map attempt's bytes for one partition. */
    private interface BlockVisitor {
        void visit(BlockManagerId location, ShuffleBlockId block, int mapIndex);
    }

    /**
     * Calls {@code visitor} for every block with bytes in this task's map and partition ranges, as
     * Spark's map output tracker has them registered (one attempt per map).
     */
    private void forEachRegisteredBlock(BlockVisitor visitor) {
        Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> byExecutor =
                SparkEnv.get().mapOutputTracker().getMapSizesByExecutorId(handle.shuffleId(), startMapIndex,
                        endMapIndex, startPartition, endPartition);
        while (byExecutor.hasNext()) {
            Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> e = byExecutor.next();
            Iterator<Tuple3<BlockId, Object, Object>> blocks = e._2().iterator();
            while (blocks.hasNext()) {
                Tuple3<BlockId, Object, Object> b = blocks.next();
                if (!(b._1() instanceof ShuffleBlockId id)) {
                    throw new IllegalStateException("unexpected block " + b._1() + " for Creel shuffle "
                            + handle.shuffleId());
                }
                visitor.visit(e._1(), id, (Integer) b._3());
            }
        }
    }

    /** The map outputs to read: one request per registered map attempt that has bytes for these partitions. */
    List<FetchRequest> requests() {
        Map<Long, int[]> ranges = new LinkedHashMap<>();
        Map<Long, BlockManagerId> locations = new LinkedHashMap<>();
        forEachRegisteredBlock((location, id, mapIndex) -> {
            int[] r = ranges.computeIfAbsent(id.mapId(), k -> new int[] {Integer.MAX_VALUE, -1, mapIndex});
            r[0] = Math.min(r[0], id.reduceId());
            r[1] = Math.max(r[1], id.reduceId() + 1);
            locations.put(id.mapId(), location);
        });
        List<FetchRequest> out = new ArrayList<>(ranges.size());
        ranges.forEach((mapId, r) -> out.add(new FetchRequest(mapId, r[2], locations.get(mapId),
                ShufflePaths.mapOutput(handle.directory(), r[2], mapId), r[0], r[1])));
        out.sort((a, b) -> Integer.compare(a.mapIndex(), b.mapIndex()));
        return out;
    }

    /**
     * For the merged layout: for each partition to read, the registered map attempts with bytes
     * there, by map index (a map the driver registered no status for, or one outside the map range,
     * is not listed: its batches are skipped).
     */
    java.util.TreeMap<Integer, Map<Integer, MergedFetcher.Expected>> expected() {
        java.util.TreeMap<Integer, Map<Integer, MergedFetcher.Expected>> out = new java.util.TreeMap<>();
        forEachRegisteredBlock((location, id, mapIndex) -> out.computeIfAbsent(id.reduceId(),
                k -> new LinkedHashMap<>()).put(mapIndex, new MergedFetcher.Expected(mapIndex, id.mapId(), location)));
        return out;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<Product2<K, C>> read() {
        ShuffleDependency<K, ?, C> dep = handle.dependency();
        PieceSource fetcher = handle.merged()
                ? new MergedFetcher(catalog.client(), catalog.timeout(), handle.shuffleId(), handle.directory(),
                        expected(), settings.readChunk(), metrics)
                : new PartitionFetcher(handle.shuffleId(), dep.partitioner().numPartitions(), requests(), catalog,
                        settings.maxBytesInFlight(), settings.readChunk(), metrics);
        Iterator<Product2<Object, Object>> records = new RecordIterator(fetcher, dep.serializer().newInstance(),
                SparkEnv.get().serializerManager());
        Iterator<Product2<Object, Object>> interruptible = new InterruptibleIterator<>(context, records);

        Iterator<Product2<K, C>> result;
        Option<Aggregator<K, ?, C>> aggregator = (Option) dep.aggregator();
        if (dep.keyOrdering().isDefined()) {
            ExternalSorter sorter;
            if (aggregator.isDefined() && dep.mapSideCombine()) {
                Aggregator<K, C, C> agg = (Aggregator<K, C, C>) aggregator.get();
                Aggregator<K, C, C> merge = new Aggregator<>(c -> c, agg.mergeCombiners(), agg.mergeCombiners());
                sorter = SorterBridge.create(context, Option.apply(merge), dep.keyOrdering().get(), dep.serializer());
            } else {
                sorter = SorterBridge.create(context, (Option) aggregator, dep.keyOrdering().get(), dep.serializer());
            }
            result = sorter.insertAllAndUpdateMetrics((Iterator) interruptible);
        } else if (aggregator.isDefined()) {
            Aggregator agg = aggregator.get();
            result = dep.mapSideCombine()
                    ? agg.combineCombinersByKey((Iterator) interruptible, context)
                    : agg.combineValuesByKey((Iterator) interruptible, context);
        } else {
            result = (Iterator) interruptible;
        }
        if (result instanceof InterruptibleIterator) {
            return result;
        }
        // The aggregator or sorter consumed the first one; cancellation must reach the caller's loop too.
        return new InterruptibleIterator<>(context, result);
    }

    /** Every record of every fetched partition, counting records read; merges the read metrics at the end. */
    private final class RecordIterator extends AbstractIterator<Product2<Object, Object>> {
        private final PieceSource fetcher;
        private final SerializerInstance serializer;
        private final SerializerManager streams;
        private Iterator<Tuple2<Object, Object>> current;
        private FetchedPartition piece;
        private boolean done;

        RecordIterator(PieceSource fetcher, SerializerInstance serializer, SerializerManager streams) {
            this.fetcher = fetcher;
            this.serializer = serializer;
            this.streams = streams;
        }

        @Override
        public boolean hasNext() {
            while (current == null || !piecesNext()) {
                if (done) {
                    return false;
                }
                FetchedPartition p = fetcher.next();
                if (p == null) {
                    done = true;
                    context.taskMetrics().mergeShuffleReadMetrics();
                    return false;
                }
                piece = p;
                ShuffleBlockId block = new ShuffleBlockId(handle.shuffleId(), p.request().mapId(), p.partition());
                InputStream in = streams.wrapStream(block, p.stream());
                current = serializer.deserializeStream(in).asKeyValueIterator();
            }
            return true;
        }

        @Override
        public Product2<Object, Object> next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException("no more shuffle records");
            }
            metrics.incRecordsRead(1);
            try {
                return current.next();
            } catch (RuntimeException e) {
                throw corruptOr(e);
            }
        }

        private boolean piecesNext() {
            try {
                return current.hasNext();
            } catch (RuntimeException e) {
                throw corruptOr(e);
            }
        }

        /**
         * A piece that does not deserialize may be a corrupted one whose checksum is checked only at
         * its end (a large piece read in chunks): check it now, so corruption fails the fetch (Spark
         * reruns the map) rather than the task; a piece whose checksum matches rethrows the error.
         */
        private RuntimeException corruptOr(RuntimeException e) {
            if (piece != null && piece.stream() instanceof PieceSource.Checked chunked) {
                chunked.verifyRest();
            }
            return e;
        }
    }
}
