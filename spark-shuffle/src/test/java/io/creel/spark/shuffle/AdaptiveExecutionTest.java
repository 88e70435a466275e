package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.spark.common.CreelTestCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spark SQL (UnsafeRow shuffles) with adaptive execution: coalesced partition-range reads,
 * skew-join splitting (map-index-range reads) and local shuffle reads after a join turns into a
 * broadcast join. Each query runs with Spark's sort shuffle and with Creel (coalescing and skew
 * splits in both layouts: per map and merged); the rows must be identical, and so must AQE's
 * decisions (which depend on the per-partition sizes in the map statuses).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AdaptiveExecutionTest {
    private static CreelTestCluster creel;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(256L << 20, 512L << 20);
    }

    @AfterAll
    static void stop() {
        if (creel != null) {
            creel.close();
        }
    }

    /** Rows (as sorted strings) and the AQE shuffle reads of the final plan. */
    private record Outcome(List<String> rows, List<String> reads, int partitions, String plan) {
    }

    private static Outcome run(SparkConf conf, Function<SparkSession, Dataset<Row>> query) {
        SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
        try {
            Dataset<Row> df = query.apply(spark);
            List<String> rows = new ArrayList<>(df.collectAsList().stream().map(Row::toString).toList());
            java.util.Collections.sort(rows);
            String plan = df.queryExecution().executedPlan().toString();
            List<String> reads = new ArrayList<>();
            Matcher m = Pattern.compile("AQEShuffleRead (local|coalesced and skewed|coalesced|skewed)").matcher(plan);
            while (m.find()) {
                reads.add(m.group(1));
            }
            java.util.Collections.sort(reads);
            return new Outcome(rows, reads, df.rdd().getNumPartitions(), plan);
        } finally {
            spark.stop();
        }
    }

    private static SparkConf tune(SparkConf c) {
        return c.set("spark.sql.adaptive.enabled", "true")
                .set("spark.sql.shuffle.partitions", "40")
                .set("spark.sql.adaptive.coalescePartitions.enabled", "true")
                .set("spark.sql.adaptive.advisoryPartitionSizeInBytes", "64k")
                .set("spark.sql.adaptive.coalescePartitions.minPartitionSize", "1k");
    }

    private static void compare(String name, SparkConf extra, Function<SparkSession, Dataset<Row>> query,
                                String expectedRead, String... layouts) {
        SparkConf vanilla = tune(CreelTestCluster.vanillaConf("local[2]", name + "-vanilla"));
        for (scala.Tuple2<String, String> kv : extra.getAll()) {
            vanilla.set(kv._1(), kv._2());
        }
        Outcome expected = run(vanilla, query);
        assertTrue(expected.reads().contains(expectedRead), name + ": the vanilla plan has no '" + expectedRead
                + "' shuffle read: " + expected.reads() + "\n" + expected.plan());
        for (String layout : layouts.length == 0 ? new String[] {"per-map"} : layouts) {
            SparkConf viaCreel = tune(creel.sparkConf("local[2]", name + "-creel-" + layout))
                    .set(io.creel.spark.common.SparkCreelConf.LAYOUT, layout);
            for (scala.Tuple2<String, String> kv : extra.getAll()) {
                viaCreel.set(kv._1(), kv._2());
            }
            Outcome got = run(viaCreel, query);
            String what = name + " (" + layout + " layout)";
            assertEquals(expected.rows(), got.rows(), what + ": rows differ from Spark's sort shuffle");
            assertEquals(expected.reads(), got.reads(), what + ": AQE decided differently");
            assertEquals(expected.partitions(), got.partitions(), what + ": AQE chose another partition count");
        }
    }

    @Test
    void coalescedPartitionsReadPartitionRanges() {
        compare("coalesce", new SparkConf(), spark -> spark.range(0, 200_000, 1, 4)
                .selectExpr("id % 5000 AS k", "id AS v").groupBy("k").sum("v"), "coalesced", "per-map", "merged");
    }

    @Test
    void skewedJoinPartitionsAreSplitIntoMapRanges() {
        SparkConf skew = new SparkConf()
                .set("spark.sql.autoBroadcastJoinThreshold", "-1")
                .set("spark.sql.adaptive.skewJoin.enabled", "true")
                .set("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2")
                .set("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "32k")
                .set("spark.sql.adaptive.coalescePartitions.enabled", "false");
        compare("skew", skew, spark -> {
            // Key 0 carries most of the left side.
            Dataset<Row> left = spark.range(0, 120_000, 1, 6).selectExpr("CASE WHEN id % 10 < 8 THEN 0 ELSE id % 500 END AS k",
                    "id AS a");
            Dataset<Row> right = spark.range(0, 2_000, 1, 2).selectExpr("id % 500 AS k", "id AS b");
            // Grouping by something other than k needs its own exchange, so splitting k's partition is allowed.
            return left.join(right, "k").selectExpr("(a + b) % 7 AS x").groupBy("x").count();
        }, "skewed", "per-map", "merged");
    }

    @Test
    void aJoinThatBecomesABroadcastJoinReadsItsShuffleLocally() {
        SparkConf local = new SparkConf()
                .set("spark.sql.autoBroadcastJoinThreshold", "200k")
                .set("spark.sql.adaptive.localShuffleReader.enabled", "true");
        compare("local-read", local, spark -> {
            Dataset<Row> big = spark.range(0, 100_000, 1, 4).selectExpr("id % 1000 AS k", "id AS a");
            // Statically as large as the range; at run time only 100 rows survive the filter (which says
            // nothing about k, so the optimizer cannot shrink the other side too).
            Dataset<Row> small = spark.range(0, 100_000, 1, 4).selectExpr("id % 1000 AS k", "id AS b")
                    .where("b < 100");
            // Grouping by another column needs its own exchange, so reading locally adds no shuffle.
            return big.join(small, "k").selectExpr("(a + b) % 10 AS x").groupBy("x").count();
        }, "local");
    }

    @Test
    void windowDistinctAndOrderByMatchTheSortShuffle() {
        compare("window", new SparkConf(), spark -> {
            spark.range(0, 50_000, 1, 4).selectExpr("id % 97 AS g", "id % 13 AS h", "(id * 31) % 1009 AS v")
                    .createOrReplaceTempView("t");
            return spark.sql("SELECT g, h, v, rank() OVER (PARTITION BY g ORDER BY v DESC, h) AS r FROM "
                    + "(SELECT DISTINCT g, h, v FROM t) ORDER BY g, r LIMIT 2000");
        }, "coalesced");
    }
}
