package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.Opcode;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.SparkCreelConf;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A shuffle of 1000 maps x 1000 reducers of small records in the per-map layout completes without
 * creating M x R Creel nodes: one File per map (the merged layout's bound: {@code MergedLayoutScaleTest}). Prints the node count and the namenode operations, counted on the wire.
 */
@Tag("matrix")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ThousandByThousandTest {
    @Test
    void aThousandByAThousandShuffleCreatesOneFilePerMap() throws Exception {
        int maps = 1000;
        int reducers = 1000;
        int perMap = 2000;
        try (CreelTestCluster creel = CreelTestCluster.start(512L << 20, 1L << 30);
             NamenodeOpCounter counter = new NamenodeOpCounter(creel.cluster().address().port())) {
            long nodesBefore = creel.cluster().namenode().nodeCount();
            long start = System.nanoTime();
            long files;
            long checksum;
            Map<Opcode, Long> ops;
            try (JavaSparkContext sc = new JavaSparkContext(creel.sparkConf("local[2]", "1000x1000")
                    .set(SparkCreelConf.NAMENODE_ADDRESS, "creel://127.0.0.1:" + counter.port())
                    .set(SparkCreelConf.LAYOUT, "per-map"))) {
                JavaPairRDD<Integer, Integer> shuffled = sc.parallelize(IntStream.range(0, maps).boxed().toList(), maps)
                        .flatMapToPair(m -> IntStream.range(0, perMap)
                                .mapToObj(i -> new Tuple2<>(m * perMap + i, 1)).iterator())
                        .partitionBy(new HashPartitioner(reducers));
                checksum = shuffled.mapPartitionsWithIndex((p, it) -> {
                    long s = 0;
                    while (it.hasNext()) {
                        Tuple2<Integer, Integer> t = it.next();
                        if (Math.floorMod(t._1().hashCode(), reducers) != p) {
                            throw new IllegalStateException("key " + t._1() + " in partition " + p);
                        }
                        s += t._1();
                    }
                    return java.util.List.of(s).iterator();
                }, false).reduce(Long::sum);
                ops = counter.counts(); // before the listing below, which looks every File up
                String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(shuffled));
                files = CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(), dir).size();
            }
            long n = (long) maps * perMap;
            assertEquals(n * (n - 1) / 2, checksum, "every record arrived once, in its partition");
            assertEquals(maps, files, "one File per map");
            long created = creel.cluster().namenode().nodeCount() - nodesBefore;
            System.out.printf("1000 x 1000 shuffle (%d records): %d map files; %d nodes at the peak of the "
                            + "shuffle's life (root, app and shuffle directories included); "
                            + "namenode requests %d %s; %.1f s%n", n, files, files + 3,
                    ops.values().stream().mapToLong(Long::longValue).sum(), ops,
                    (System.nanoTime() - start) / 1e9);
            assertTrue(created <= 2, "the application removed its data at stop; left: " + created);
            long creates = ops.getOrDefault(Opcode.CREATE, 0L);
            assertTrue(creates <= maps + 10, "creates: " + creates);
            long lookups = ops.getOrDefault(Opcode.LOOKUP, 0L);
            assertTrue(lookups <= maps + 10, "one lookup per map output per executor, not per reducer: " + lookups);
        }
    }
}
