package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.LocalClusterMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * The same jobs with Spark's sort shuffle and with Creel, results compared exactly: RDD
 * aggregations and sorts, and SQL with joins, GROUP BY, ORDER BY, window functions and DISTINCT
 * over generated tables of a million rows; in {@code local[4]} and in {@code local-cluster} mode
 * (two executor JVMs talking to the Creel cluster in the test JVM).
 */
@Tag("matrix")
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class ComparisonSuiteTest {
    private static final long ROWS = 1_000_000;
    private static CreelTestCluster creel;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(1L << 30, 2L << 30);
    }

    @AfterAll
    static void stop() {
        if (creel != null) {
            creel.close();
        }
    }

    /** Every job's result as comparable text, in job order. */
    private static Map<String, List<String>> jobs(SparkSession spark) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        JavaRDD<Long> ids = sc.parallelize(List.of(0, 1, 2, 3, 4, 5, 6, 7), 8)
                .flatMap(p -> java.util.stream.LongStream.range(p * ROWS / 8, (p + 1) * ROWS / 8).boxed().iterator());
        JavaPairRDD<Long, Long> pairs = ids.mapToPair(i -> new Tuple2<>((i * 2654435761L) % 50_021, i));

        out.put("rdd reduceByKey", text(pairs.reduceByKey(Long::sum, 16).collect()));
        out.put("rdd aggregateByKey", text(pairs.aggregateByKey(new Tuple2<>(0L, 0L), 12,
                (a, v) -> new Tuple2<>(a._1() + v, a._2() + 1),
                (a, b) -> new Tuple2<>(a._1() + b._1(), a._2() + b._2())).collect()));
        out.put("rdd combineByKey without map-side combine", text(pairs.combineByKey(v -> v, Long::max, Long::max,
                new org.apache.spark.HashPartitioner(300), false, null).collect()));
        out.put("rdd groupByKey sizes", text(pairs.groupByKey(10).mapValues(vs -> {
            long n = 0;
            long min = Long.MAX_VALUE;
            for (long v : vs) {
                n++;
                min = Math.min(min, v);
            }
            return n + "/" + min;
        }).collect()));
        // A total sort of a million records: each partition's size and an order-sensitive digest.
        out.put("rdd sortByKey", pairs.mapToPair(t -> new Tuple2<>(t._2() * 7919 % 1_000_003, t._1()))
                .sortByKey(false, 12).mapPartitionsWithIndex((p, it) -> {
                    long n = 0;
                    long digest = 17;
                    long prev = Long.MAX_VALUE;
                    while (it.hasNext()) {
                        Tuple2<Long, Long> t = it.next();
                        if (t._1() > prev) {
                            throw new IllegalStateException("partition " + p + " out of order");
                        }
                        prev = t._1();
                        digest = digest * 31 + t._1() * 1_000_003 + t._2();
                        n++;
                    }
                    return List.of(p + ":" + n + ":" + digest).iterator();
                }, true).collect());

        spark.range(0, ROWS, 1, 8).selectExpr("id", "id % 100000 AS customer", "(id * 7) % 1000 / 10.0 AS amount",
                "CAST(id % 365 AS INT) AS day").createOrReplaceTempView("orders");
        spark.range(0, 100_000, 1, 4).selectExpr("id AS customer", "CAST(id % 20 AS INT) AS region",
                "concat('c', id) AS name").createOrReplaceTempView("customers");
        out.put("sql join group by", sql(spark, "SELECT c.region, count(*), sum(o.amount), max(o.day) FROM orders o "
                + "JOIN customers c ON o.customer = c.customer GROUP BY c.region"));
        out.put("sql order by", sql(spark, "SELECT id, amount, day FROM orders ORDER BY amount DESC, day, id LIMIT 3000"));
        out.put("sql total order digest", sql(spark, "SELECT sum(rn * (id % 1000)), count(*) FROM (SELECT id, "
                + "row_number() OVER (ORDER BY amount, id DESC) AS rn FROM orders)"));
        out.put("sql window", sql(spark, "SELECT region, sum(r), sum(running) FROM (SELECT c.region, "
                + "rank() OVER (PARTITION BY o.customer ORDER BY o.amount DESC, o.id) AS r, "
                + "sum(o.amount) OVER (PARTITION BY c.region ORDER BY o.id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) "
                + "AS running FROM orders o JOIN customers c ON o.customer = c.customer) GROUP BY region"));
        out.put("sql distinct", sql(spark, "SELECT count(DISTINCT customer, day), count(DISTINCT amount) FROM orders"));
        out.put("sql distinct rows", sql(spark, "SELECT DISTINCT day % 50, region FROM orders o JOIN customers c "
                + "ON o.customer = c.customer"));
        return out;
    }

    private static <K, V> List<String> text(List<Tuple2<K, V>> rows) {
        List<String> s = new ArrayList<>(rows.size());
        rows.forEach(t -> s.add(t._1() + "=" + t._2()));
        java.util.Collections.sort(s);
        return s;
    }

    private static List<String> sql(SparkSession spark, String query) {
        List<Row> rows = spark.sql(query).collectAsList();
        List<String> s = new ArrayList<>(rows.size());
        rows.forEach(r -> s.add(r.toString()));
        if (!query.contains("ORDER BY amount DESC, day, id")) {
            java.util.Collections.sort(s); // unordered results compare as sets; the ORDER BY keeps its order
        }
        return s;
    }

    private static Map<String, List<String>> run(SparkConf conf) {
        conf.set("spark.sql.shuffle.partitions", "24").set("spark.driver.memory", "3g");
        SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
        long start = System.nanoTime();
        try {
            return jobs(spark);
        } finally {
            spark.stop();
            System.out.printf("%s on %s: %.1f s%n", conf.get("spark.app.name"), conf.get("spark.master"),
                    (System.nanoTime() - start) / 1e9);
        }
    }

    private static void assertSame(Map<String, List<String>> expected, Map<String, List<String>> got, String what) {
        assertEquals(expected.keySet(), got.keySet());
        for (String job : expected.keySet()) {
            assertFalse(expected.get(job).isEmpty(), job + " gave nothing");
            assertEquals(expected.get(job), got.get(job), what + ": " + job);
        }
    }

    private static Map<String, List<String>> vanilla;

    private static synchronized Map<String, List<String>> vanilla() {
        if (vanilla == null) {
            vanilla = run(CreelTestCluster.vanillaConf("local[4]", "vanilla"));
        }
        return vanilla;
    }

    @Test
    void localModeGivesTheSameResultsAsSparksSortShuffle() {
        assertSame(vanilla(), run(creel.sparkConf("local[4]", "creel")), "local[4]");
    }

    @Test
    void localClusterModeGivesTheSameResultsAsSparksSortShuffle() {
        Function<SparkConf, SparkConf> cluster = c -> LocalClusterMode.prepare(c.setMaster(
                LocalClusterMode.master(2, 1536)).set("spark.executor.memory", "1536m"));
        // Compared with vanilla in local mode: a vanilla local-cluster run would only test Spark, and
        // cost a third of this suite's time on each of the three Spark lines CI runs it on.
        assertSame(vanilla(), run(cluster.apply(creel.sparkConf("", "creel-cluster"))), "local-cluster");
    }
}
