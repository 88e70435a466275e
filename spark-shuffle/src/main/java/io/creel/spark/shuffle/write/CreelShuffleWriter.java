package io.creel.spark.shuffle.write;

import io.creel.spark.shuffle.CreelShuffleHandle;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.Supplier;
import org.apache.spark.Aggregator;
import org.apache.spark.Partitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.TaskContext;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.serializer.SerializerManager;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.collection.PartitionedAppendOnlyMap;
import org.apache.spark.util.collection.PartitionedPairBuffer;
import org.apache.spark.util.collection.WritablePartitionedPairCollection;
import scala.Function1;
import scala.Function2;
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A map task's writer: partitions (and, with a map-side combine, combines) the task's records in
 * memory and writes them into Creel ({@link MapOutputSink}: the task's own File, or its lane's Files
 * of the merged layout), so no shuffle byte touches the executor's local disk.
 *
 * <p>Records are held one of two ways, chosen on the driver ({@link CreelShuffleHandle.WriterKind}):
 * serialized as they come ({@link SerializedRecords}: a relocatable serializer and no map-side
 * combine — the case of Spark SQL and of Kryo), or as objects in Spark's size-tracking collections
 * (a map-side combine, or a serializer that cannot relocate records such as Java serialization:
 * each partition piece is then one serialization stream of its own).
 *
 * <p>Memory: the buffer is accounted to the task's memory manager as Spark's own writers are. When
 * the manager grants no more (or another consumer asks this one to spill, or
 * {@code spark.shuffle.spill.numElementsForceSpillThreshold} records are buffered), the buffer is
 * written to Creel as a run of the File and emptied — a spill that goes to Creel. A map-side
 * combine then simply starts a fresh map: the reduce side merges combiners anyway, so partially
 * combined runs are correct.
 */
public final class CreelShuffleWriter<K, V, C> extends ShuffleWriter<K, V> {
    private static final Logger LOG = LoggerFactory.getLogger(CreelShuffleWriter.class);
    /** What Spark's Spillable starts from before asking the memory manager: a task's free allowance. */
    private static final long INITIAL_THRESHOLD = 5L << 20;
    /** What Spark's own writers pass: serializers that use class tags get none more precise from a dependency. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static final ClassTag ANY = ClassTag$.MODULE$.Any();

    private final int shuffleId;
    private final long mapId;
    private final ShuffleDependency<K, V, C> dep;
    private final Partitioner partitioner;
    private final int partitions;
    private final MapOutputSink file;
    private final SerializerInstance serializer;
    private final SerializerManager streams;
    private final ShuffleWriteMetricsReporter metrics;
    private final BlockManagerId location;
    private final long forceSpillRecords;
    private final Memory memory;
    private final CreelShuffleHandle.WriterKind kind;
    private final SerializedRecords serialized;
    private SerializationStream recordStream;
    private WritablePartitionedPairCollection<K, Object> objects;
    private long objectThreshold = INITIAL_THRESHOLD;
    private long buffered;
    private long[] lengths;
    private boolean stopping;

    /**
     * @param handle         the shuffle
     * @param mapId          the task attempt id (what the file name and the {@code MapStatus} carry)
     * @param file           the task's output File , not yet created
     * @param context        the task (its memory manager)
     * @param streams        Spark's compression and encryption wrapping
     * @param location       the {@code MapStatus} location (this executor's block manager)
     * @param forceSpillRecords records after which the buffer is flushed whatever memory says
     */
    public CreelShuffleWriter(CreelShuffleHandle<K, V, C> handle, long mapId, MapOutputSink file, TaskContext context,
                              SerializerManager streams, BlockManagerId location, long forceSpillRecords,
                              ShuffleWriteMetricsReporter metrics) {
        this.shuffleId = handle.shuffleId();
        this.mapId = mapId;
        this.dep = handle.dependency();
        this.partitioner = dep.partitioner();
        this.partitions = partitioner.numPartitions();
        this.file = file;
        this.serializer = dep.serializer().newInstance();
        this.streams = streams;
        this.metrics = metrics;
        this.location = location;
        this.forceSpillRecords = forceSpillRecords;
        this.kind = handle.writerKind();
        this.memory = new Memory(context);
        this.serialized = kind == CreelShuffleHandle.WriterKind.SERIALIZED
                ? new SerializedRecords(partitions, memory::grow) : null;
    }

    @Override
    public void write(Iterator<Product2<K, V>> records) throws IOException {
        switch (kind) {
            case SERIALIZED -> writeSerialized(records);
            case COMBINING -> writeCombined(records);
            case OBJECTS -> writeObjects(records);
        }
        flush();
        long start = System.nanoTime();
        lengths = file.commit();
        metrics.incWriteTime(System.nanoTime() - start);
    }

    private void writeSerialized(Iterator<Product2<K, V>> records) throws IOException {
        recordStream = serializer.serializeStream(serialized);
        while (records.hasNext()) {
            Product2<K, V> r = records.next();
            K key = r._1();
            serialized.beginRecord(partitioner.getPartition(key));
            recordStream.writeKey(key, ANY);
            recordStream.writeValue(r._2(), ANY);
            recordStream.flush();
            boolean shortOfMemory = serialized.endRecord();
            metrics.incRecordsWritten(1);
            if (shortOfMemory || serialized.records() >= forceSpillRecords) {
                flush();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void writeCombined(Iterator<Product2<K, V>> records) throws IOException {
        Aggregator<K, V, C> agg = dep.aggregator().get();
        Function1<V, C> create = agg.createCombiner();
        Function2<C, V, C> merge = agg.mergeValue();
        PartitionedAppendOnlyMap<K, Object> map = new PartitionedAppendOnlyMap<>();
        objects = map;
        while (records.hasNext()) {
            Product2<K, V> r = records.next();
            K key = r._1();
            V value = r._2();
            PartitionedAppendOnlyMap<K, Object> m = (PartitionedAppendOnlyMap<K, Object>) objects;
            m.changeValue(new Tuple2<>(partitioner.getPartition(key), key),
                    (Function2<Object, Object, Object>) (had, old) -> (Boolean) had
                            ? merge.apply((C) old, value) : create.apply(value));
            metrics.incRecordsWritten(1);
            afterObjectUpdate(() -> new PartitionedAppendOnlyMap<>());
        }
    }

    private void writeObjects(Iterator<Product2<K, V>> records) throws IOException {
        objects = new PartitionedPairBuffer<>(64);
        while (records.hasNext()) {
            Product2<K, V> r = records.next();
            K key = r._1();
            objects.insert(partitioner.getPartition(key), key, r._2());
            metrics.incRecordsWritten(1);
            afterObjectUpdate(() -> new PartitionedPairBuffer<>(64));
        }
    }

    /** Spark's spill rule over the object collections: check every 32 records, grow the grant or flush. */
    private void afterObjectUpdate(Supplier<WritablePartitionedPairCollection<K, Object>> fresh) throws IOException {
        buffered++;
        boolean flush = buffered >= forceSpillRecords;
        if (!flush && buffered % 32 == 0) {
            long size = ((org.apache.spark.util.collection.SizeTracker) objects).estimateSize();
            if (size >= objectThreshold) {
                long granted = memory.acquireMemory(2 * size - objectThreshold);
                objectThreshold += granted;
                flush = size >= objectThreshold;
            }
        }
        if (flush) {
            flush();
            objects = fresh.get();
        }
    }

    /** Writes what is buffered as one run of the File and gives the buffer's memory back. */
    private void flush() throws IOException {
        long start = System.nanoTime();
        if (serialized != null && !serialized.isEmpty()) {
            file.beginRun();
            serialized.writeTo(new SerializedRecords.PieceSink() {
                @Override
                public OutputStream open(int p) throws IOException {
                    return streams.wrapStream(new ShuffleBlockId(shuffleId, mapId, p), file.piece(p));
                }

                @Override
                public void close(int p, OutputStream out, long records) throws IOException {
                    out.close();
                }
            });
            file.endRun();
        } else if (objects != null && buffered > 0) {
            file.beginRun();
            writeObjectRun(objects.partitionedDestructiveSortedIterator(Option.empty()));
            file.endRun();
            buffered = 0;
            objectThreshold = INITIAL_THRESHOLD;
        }
        memory.releaseAll();
        metrics.incWriteTime(System.nanoTime() - start);
    }

    /** Each partition's objects as one serialization stream of its own (any serializer can read that back). */
    private void writeObjectRun(Iterator<Tuple2<Tuple2<Object, K>, Object>> sorted) throws IOException {
        int open = -1;
        SerializationStream out = null;
        while (sorted.hasNext()) {
            Tuple2<Tuple2<Object, K>, Object> e = sorted.next();
            int p = (Integer) e._1()._1();
            if (p != open) {
                if (out != null) {
                    out.close();
                }
                open = p;
                out = serializer.serializeStream(streams.wrapStream(new ShuffleBlockId(shuffleId, mapId, p),
                        file.piece(p)));
            }
            out.writeKey(e._1()._2(), ANY);
            out.writeValue(e._2(), ANY);
        }
        if (out != null) {
            out.close();
        }
    }

    @Override
    public Option<MapStatus> stop(boolean success) {
        if (stopping) {
            return Option.empty();
        }
        stopping = true;
        try {
            if (success && lengths != null) {
                metrics.incBytesWritten(file.written());
                return Option.apply(MapStatuses.of(location, lengths, mapId));
            }
            file.abort();
            return Option.empty();
        } finally {
            memory.releaseAll();
            if (serialized != null) {
                serialized.clear();
            }
            objects = null;
        }
    }

    @Override
    public long[] getPartitionLengths() {
        return lengths == null ? new long[partitions] : lengths.clone();
    }

    /**
     * The writer's account with the task's memory manager. Spilling on another consumer's request
     * writes the buffer to Creel between records; a request that comes while a record is half
     * written (this writer's own growth) is answered after that record.
     */
    private final class Memory extends MemoryConsumer {
        private boolean inRecord;

        Memory(TaskContext context) {
            super(context.taskMemoryManager(), MemoryMode.ON_HEAP);
        }

        /** Accounts {@code bytes} more of serialized buffer; false when the manager granted less. */
        boolean grow(long bytes) {
            inRecord = true;
            try {
                long granted = acquireMemory(bytes);
                return granted >= bytes;
            } finally {
                inRecord = false;
            }
        }

        void releaseAll() {
            long held = getUsed(); // not the field: Spark 4.2 made it an AtomicLong
            if (held > 0) {
                freeMemory(held);
            }
        }

        @Override
        public long spill(long size, MemoryConsumer trigger) throws IOException {
            if (trigger == this || inRecord || stopping || lengths != null) {
                return 0; // this writer flushes on its own once the current record is complete
            }
            long before = getUsed();
            if ((serialized != null && !serialized.isEmpty()) || buffered > 0) {
                LOG.debug("map {} of shuffle {} writes its buffer to Creel for another consumer ({} bytes)", mapId,
                        shuffleId, before);
                flush();
                if (objects instanceof PartitionedAppendOnlyMap) {
                    objects = new PartitionedAppendOnlyMap<>();
                } else if (objects != null) {
                    objects = new PartitionedPairBuffer<>(64);
                }
            }
            return before - getUsed();
        }
    }
}
