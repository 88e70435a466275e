package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.Opcode;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.LocalClusterMode;
import io.creel.spark.common.SparkCreelConf;
import java.util.List;
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
 * The merged layout at the scales where the per-map layout hurts, on {@code local-cluster} (2
 * executors x 2 cores): M = R = 2,000 small records, and R = 10,000 (where every executor would read
 * every map's 10,000-entry index). Every record arrives once in its partition; the shuffle's nodes
 * stay within 1 + R + L x R (L lanes: at most the map tasks that ran at once, 4 here, plus one per
 * lane a failure broke), never M x R; map tasks publish their Files with a few namenode requests,
 * not one per File.
 */
@Tag("matrix")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class MergedLayoutScaleTest {
    private static final int LANES = 4;

    @Test
    void mergedShufflesStayWithinTheirNodeBoundAtTwoThousandSquaredAndTenThousandReducers() throws Exception {
        // This test counts nodes, it does not lose servers or run short: a loaded machine must not get
        // a storage server declared dead, and the Bags' record blocks come in regions of 1,024 blocks,
        // not the kit's 64 (thousands of creates at once can outrun the namenode's region grants, and
        // then fail). A broken lane adds its Files, which the bound allows but this test does not.
        try (CreelTestCluster creel = CreelTestCluster.start(2L << 30, 1L << 30, 1, 1,
                Map.of("creel.namenode.server.timeout", "60s", "creel.storage.region.size", "64m"));
             NamenodeOpCounter counter = new NamenodeOpCounter(creel.cluster().address().port());
             JavaSparkContext sc = new JavaSparkContext(LocalClusterMode.prepare(
                     creel.sparkConf("local-cluster[2,2,1024]", "merged-scale")
                             .set(SparkCreelConf.NAMENODE_ADDRESS, "creel://127.0.0.1:" + counter.port())
                             .set(SparkCreelConf.LAYOUT, "merged")))) {
            run(sc, creel, counter, 2000, 2000, 2_000_000);
            run(sc, creel, counter, 40, 10_000, 400_000);
        }
    }

    private static void run(JavaSparkContext sc, CreelTestCluster creel, NamenodeOpCounter counter, int maps,
                            int reducers, long records) {
        long nodesBefore = creel.cluster().namenode().nodeCount();
        Map<Opcode, Long> opsBefore = counter.counts();
        long start = System.nanoTime();
        long perMap = records / maps;
        JavaPairRDD<Long, Long> shuffled = sc.parallelize(IntStream.range(0, maps).boxed().toList(), maps)
                .flatMapToPair(m -> java.util.stream.LongStream.range(0, perMap)
                        .mapToObj(i -> new Tuple2<>(m * perMap + i, 1L)).iterator())
                .partitionBy(new HashPartitioner(reducers));
        long[] counted = shuffled.mapPartitionsWithIndex((p, it) -> {
            long n = 0;
            long sum = 0;
            while (it.hasNext()) {
                Tuple2<Long, Long> t = it.next();
                if (Math.floorMod(t._1().hashCode(), reducers) != p) {
                    throw new IllegalStateException("key " + t._1() + " in partition " + p);
                }
                n++;
                sum += t._1();
            }
            return List.of(new long[] {n, sum}).iterator();
        }, false).reduce((a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
        long n = perMap * maps;
        assertEquals(n, counted[0], "every record arrived once");
        assertEquals(n * (n - 1) / 2, counted[1], "in its partition");
        long nodes = creel.cluster().namenode().nodeCount() - nodesBefore;
        Map<Opcode, Long> ops = counter.counts();
        long syncs = ops.getOrDefault(Opcode.SYNC_MANY, 0L) - opsBefore.getOrDefault(Opcode.SYNC_MANY, 0L);
        long commits = ops.getOrDefault(Opcode.COMMIT, 0L) - opsBefore.getOrDefault(Opcode.COMMIT, 0L);
        System.out.printf("merged %d x %d (%d records): %d nodes (bound 1 + R + %d R = %d; M x R = %d), "
                        + "%d SYNC_MANY, %d COMMIT; %.1f s%n", maps, reducers, n, nodes, LANES,
                1 + reducers + (long) LANES * reducers, (long) maps * reducers, syncs, commits,
                (System.nanoTime() - start) / 1e9);
        // The first shuffle also made the root and the application's directory.
        assertTrue(nodes <= 3 + reducers + (long) LANES * reducers, "nodes: " + nodes);
        // A task publishes its Files with a SYNC_MANY per 4,096 of them or 48 KiB of inline bytes: at
        // least a hundred Files a request here, never one COMMIT per File. (COMMITs counted here are
        // the earlier shuffle's lanes closing when Spark unregisters it.)
        assertTrue(syncs * 100 <= (long) maps * reducers, "SYNC_MANY: " + syncs);
    }
}
