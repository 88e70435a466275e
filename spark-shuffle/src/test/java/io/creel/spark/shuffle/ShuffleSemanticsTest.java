package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.SparkCreelConf;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Spark's shuffle semantics through Creel, on every map-side writer path (bypass-merge, serialized,
 * sort), with spilling forced every few thousand records on both sides, and large partitions read
 * in chunks. Expected answers are computed in plain Java.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ShuffleSemanticsTest {
    private static final int N = 60_000;
    private static CreelTestCluster creel;
    private static JavaSparkContext sc;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(256L << 20, 512L << 20);
        sc = new JavaSparkContext(creel.sparkConf("local[2]", "semantics")
                // Spill after every 3000 records: map-side sorters and reduce-side aggregation/sort spill.
                .set("spark.shuffle.spill.numElementsForceSpillThreshold", "3000")
                .set(SparkCreelConf.READ_CHUNK, "64k"));
    }

    @AfterAll
    static void stop() {
        if (sc != null) {
            sc.stop();
        }
        if (creel != null) {
            creel.close();
        }
    }

    private static JavaPairRDD<Integer, Long> pairs(int maps) {
        return sc.parallelize(IntStream.range(0, N).boxed().toList(), maps)
                .mapToPair(i -> new Tuple2<>((i * 7919) % 997, (long) i));
    }

    private static Map<Integer, Long> expectedSums() {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < N; i++) {
            m.merge((i * 7919) % 997, (long) i, Long::sum);
        }
        return m;
    }

    private static <K, V> Map<K, V> toMap(List<Tuple2<K, V>> list) {
        Map<K, V> m = new TreeMap<>();
        for (Tuple2<K, V> t : list) {
            V old = m.put(t._1(), t._2());
            assertEquals(null, old, "key " + t._1() + " came out twice");
        }
        return m;
    }

    private static CreelShuffleHandle<?, ?, ?> handleOf(JavaPairRDD<?, ?> rdd) {
        ShuffleDependency<?, ?, ?> dep = CreelShuffleInspector.shuffleOf(rdd);
        return assertInstanceOf(CreelShuffleHandle.class, dep.shuffleHandle());
    }

    @Test
    void reduceByKeyCombinesOnTheMapSide() {
        JavaPairRDD<Integer, Long> sums = pairs(4).reduceByKey(Long::sum, 9);
        assertEquals(expectedSums(), toMap(sums.collect()));
        CreelShuffleHandle<?, ?, ?> h = handleOf(sums);
        assertEquals(CreelShuffleHandle.WriterKind.COMBINING, h.writerKind());
        assertEquals(List.of("map-0-", "map-1-", "map-2-", "map-3-"),
                CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(), h.directory()).stream()
                        .map(n -> n.substring(0, n.lastIndexOf('-') + 1)).toList(),
                "one File per map task, nothing per reduce partition");
    }

    @Test
    void combineByKeyWithoutMapSideCombineSerializesRecordsAsTheyCome() {
        JavaPairRDD<Integer, Long> sums = pairs(3).combineByKey(v -> v, Long::sum, Long::sum,
                new HashPartitioner(300), false, null);
        assertEquals(expectedSums(), toMap(sums.collect()));
        assertEquals(CreelShuffleHandle.WriterKind.SERIALIZED, handleOf(sums).writerKind());
    }

    @Test
    void groupByKeyWithFewPartitionsSerializesRecordsAsTheyComeToo() {
        JavaPairRDD<Integer, Iterable<Long>> groups = pairs(3).groupByKey(5);
        Map<Integer, Long> sums = new TreeMap<>();
        Map<Integer, Integer> counts = new TreeMap<>();
        for (Tuple2<Integer, Iterable<Long>> g : groups.collect()) {
            long s = 0;
            int c = 0;
            for (long v : g._2()) {
                s += v;
                c++;
            }
            assertEquals(null, sums.put(g._1(), s));
            counts.put(g._1(), c);
        }
        assertEquals(expectedSums(), sums);
        assertEquals(N, counts.values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(CreelShuffleHandle.WriterKind.SERIALIZED, handleOf(groups).writerKind());
    }

    @Test
    void aggregateByKeyMatchesAPlainJavaAggregation() {
        JavaPairRDD<Integer, long[]> agg = pairs(4).aggregateByKey(new long[] {0, 0},
                (acc, v) -> new long[] {acc[0] + v, acc[1] + 1},
                (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
        Map<Integer, Long> sums = new TreeMap<>();
        long count = 0;
        for (Tuple2<Integer, long[]> t : agg.collect()) {
            sums.put(t._1(), t._2()[0]);
            count += t._2()[1];
        }
        assertEquals(expectedSums(), sums);
        assertEquals(N, count);
    }

    @Test
    void sortByKeyOrdersKeysAcrossAllPartitions() {
        List<Tuple2<Integer, Long>> asc = pairs(4).sortByKey(true, 6).collect();
        List<Tuple2<Integer, Long>> desc = pairs(4).sortByKey(false, 6).collect();
        assertEquals(N, asc.size());
        assertEquals(N, desc.size());
        for (int i = 1; i < N; i++) {
            assertTrue(asc.get(i - 1)._1() <= asc.get(i)._1(), "ascending order broken at " + i);
            assertTrue(desc.get(i - 1)._1() >= desc.get(i)._1(), "descending order broken at " + i);
        }
        List<Long> values = new ArrayList<>(asc.stream().map(Tuple2::_2).toList());
        values.sort(Comparator.naturalOrder());
        assertEquals(LongStreamRange.of(N), values, "every record exactly once");
    }

    @Test
    void repartitionAndSortWithinPartitionsSortsEachPartitionAndPlacesKeysByThePartitioner() {
        HashPartitioner partitioner = new HashPartitioner(7);
        List<List<Tuple2<Integer, Long>>> parts = pairs(4).repartitionAndSortWithinPartitions(partitioner).glom()
                .collect();
        assertEquals(7, parts.size());
        int total = 0;
        for (int p = 0; p < parts.size(); p++) {
            List<Tuple2<Integer, Long>> part = parts.get(p);
            total += part.size();
            for (int i = 0; i < part.size(); i++) {
                assertEquals(p, partitioner.getPartition(part.get(i)._1()), "key in the wrong partition");
                if (i > 0) {
                    assertTrue(part.get(i - 1)._1() <= part.get(i)._1(), "partition " + p + " not sorted at " + i);
                }
            }
        }
        assertEquals(N, total);
    }

    @Test
    void partitionsLargerThanTheReadChunkAreStreamedInChunks() {
        // 40 keys x 60 values of 2 KiB: each reduce partition is ~600 KiB, ten times the 64 KiB read chunk.
        JavaPairRDD<Integer, byte[]> big = sc.parallelize(IntStream.range(0, 2400).boxed().toList(), 3)
                .mapToPair(i -> {
                    byte[] v = new byte[2048];
                    java.util.Arrays.fill(v, (byte) i.intValue());
                    return new Tuple2<>(i % 40, v);
                });
        Map<Integer, Long> sums = toMap(big.mapValues(v -> (long) (v[0] & 0xff) + v.length).reduceByKey(Long::sum, 4)
                .collect());
        Map<Integer, Long> grouped = new TreeMap<>();
        for (Tuple2<Integer, Iterable<byte[]>> g : big.groupByKey(4).collect()) {
            long s = 0;
            for (byte[] v : g._2()) {
                for (int k = 1; k < v.length; k++) {
                    assertEquals(v[0], v[k], "a value's bytes were mixed up");
                }
                s += (v[0] & 0xff) + v.length;
            }
            grouped.put(g._1(), s);
        }
        assertEquals(sums, grouped);
        Map<Integer, Long> expected = new TreeMap<>();
        for (int i = 0; i < 2400; i++) {
            expected.merge(i % 40, (long) (((byte) i) & 0xff) + 2048, Long::sum);
        }
        assertEquals(expected, grouped);
    }

    @Test
    void mapTasksWithNoOutputCreateNoFile() {
        // Ten maps, only two of which have records.
        JavaPairRDD<Integer, Long> sparse = sc.parallelize(IntStream.range(0, 10).boxed().toList(), 10)
                .flatMapToPair(i -> i % 5 == 0
                        ? IntStream.range(0, 100).mapToObj(k -> new Tuple2<>(k, 1L)).iterator()
                        : java.util.Collections.emptyIterator())
                .reduceByKey(Long::sum, 3);
        Map<Integer, Long> got = toMap(sparse.collect());
        assertEquals(100, got.size());
        assertTrue(got.values().stream().allMatch(v -> v == 2L));
        List<String> files = CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(),
                handleOf(sparse).directory());
        assertEquals(2, files.size(), "only maps 0 and 5 wrote: " + files);
        assertTrue(files.get(0).startsWith("map-0-") && files.get(1).startsWith("map-5-"), files.toString());
    }

    @Test
    void anEmptyShuffleReadsNothing() {
        JavaPairRDD<Integer, Long> none = sc.parallelize(List.<Integer>of(), 3)
                .mapToPair(i -> new Tuple2<>(i, 1L)).reduceByKey(Long::sum, 4);
        assertTrue(none.collect().isEmpty());
        assertFalse(CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(),
                handleOf(none).directory()).iterator().hasNext());
    }

    /** 0..n-1 as a list of longs. */
    private static final class LongStreamRange {
        static List<Long> of(int n) {
            return java.util.stream.LongStream.range(0, n).boxed().toList();
        }
    }
}
