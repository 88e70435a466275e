package io.creel.spark.broadcast.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.spark.broadcast.BroadcastSettings;
import io.creel.spark.broadcast.CreelBroadcastPlugin;
import io.creel.spark.common.CreelTestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Broadcast hash joins with the extension return exactly what Spark returns without it: each
 * query runs with {@value StoreBroadcastRelations#ENABLED} off (Spark's broadcast) and on, with
 * AQE on and off, and the relations of the "on" runs were really stored in Creel.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BroadcastJoinTest {
    private CreelTestCluster creel;
    private CreelClient client;
    private SparkSession spark;

    static SparkConf conf(CreelTestCluster creel, String app) {
        return creel.clientConf("local[2]", app)
                .set("spark.plugins", CreelBroadcastPlugin.class.getName())
                .set("spark.sql.extensions", CreelSqlExtensions.class.getName())
                // Only the hinted joins broadcast, so each query's broadcasts are known.
                .set("spark.sql.autoBroadcastJoinThreshold", "-1");
    }

    static void tables(SparkSession spark) {
        spark.range(0, 20_000).selectExpr("id", "CAST(id % 257 AS INT) AS k",
                "CASE WHEN id % 11 = 0 THEN NULL ELSE concat('n', id % 300) END AS s").createOrReplaceTempView("f");
        // Dimension: duplicate keys (k % 150 repeats), a NULL key, names shared with f.s.
        spark.range(0, 300).selectExpr("CASE WHEN id = 7 THEN NULL ELSE CAST(id % 150 AS INT) END AS k",
                "concat('n', id) AS name", "CAST(id % 5 AS DOUBLE) AS w").createOrReplaceTempView("d");
    }

    @BeforeAll
    void start() {
        creel = CreelTestCluster.start(256L << 20, 256L << 20);
        client = CreelClient.connect(creel.cluster().clientConf());
        spark = SparkSession.builder().config(conf(creel, "broadcast-join")).getOrCreate();
        tables(spark);
    }

    @AfterAll
    void stop() {
        try {
            if (spark != null) {
                spark.stop();
            }
            if (client != null) {
                List<String> left = children(client, BroadcastSettings.ROOT_DEFAULT);
                assertEquals(List.of(), left == null ? List.of() : left, "nothing left after the application");
            }
        } finally {
            if (client != null) {
                client.close();
            }
            if (creel != null) {
                creel.close();
            }
        }
    }

    static List<String> children(CreelClient client, String dir) {
        try {
            return Futures.await(client.list(dir), Duration.ofSeconds(30), "listing " + dir).stream()
                    .map(DirectoryEntry::name).toList();
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    static List<String> rows(Dataset<Row> df) {
        return df.collectAsList().stream().map(Row::toString).sorted().toList();
    }

    /** Runs {@code sql} without and with Creel; returns how many relations the Creel run stored. */
    private long sameAnswer(boolean aqe, String what, java.util.function.Supplier<Dataset<Row>> query) {
        spark.conf().set("spark.sql.adaptive.enabled", String.valueOf(aqe));
        spark.conf().set(StoreBroadcastRelations.ENABLED, "false");
        long before = CreelRelationMode.stored();
        List<String> vanilla = rows(query.get());
        assertEquals(before, CreelRelationMode.stored(), what + ": switched off, nothing goes to Creel");
        spark.conf().set(StoreBroadcastRelations.ENABLED, "true");
        Dataset<Row> df = query.get();
        List<String> withCreel = rows(df);
        assertFalse(vanilla.isEmpty(), what + " returns rows");
        assertEquals(vanilla, withCreel, what + " (AQE " + aqe + ")");
        return CreelRelationMode.stored() - before;
    }

    private long sameAnswer(boolean aqe, String sql) {
        return sameAnswer(aqe, sql, () -> spark.sql(sql));
    }

    @ParameterizedTest(name = "AQE {0}")
    @ValueSource(booleans = {false, true})
    void hashJoinsOnIntegerStringAndCompositeKeysReturnWhatSparkReturns(boolean aqe) {
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id, d.name, d.w FROM f JOIN d ON f.k = d.k"));
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id, d.k FROM f JOIN d ON f.s = d.name"));
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id, d.w FROM f JOIN d "
                + "ON f.k = d.k AND f.s = d.name AND f.id % 3 <> d.w"));
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.k, count(*), sum(d.w) FROM f JOIN d "
                + "ON f.k = d.k GROUP BY f.k"));
    }

    @ParameterizedTest(name = "AQE {0}")
    @ValueSource(booleans = {false, true})
    void outerSemiAndAntiJoinsReturnWhatSparkReturns(boolean aqe) {
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id, d.name FROM f LEFT JOIN d ON f.k = d.k"));
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id FROM f LEFT SEMI JOIN d ON f.s = d.name"));
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id FROM f LEFT ANTI JOIN d ON f.k = d.k"));
        assertEquals(1, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ d.name, f.id FROM d RIGHT JOIN f ON f.k = d.k"));
    }

    @ParameterizedTest(name = "AQE {0}")
    @ValueSource(booleans = {false, true})
    void aNullAwareAntiJoinKeepsSparksBroadcast(boolean aqe) {
        // NOT IN with a nullable key: Spark's operator tells its special relations apart by identity.
        assertEquals(0, sameAnswer(aqe, "SELECT /*+ BROADCAST(d) */ f.id FROM f WHERE f.k NOT IN (SELECT k FROM d WHERE k > 3)"));
    }

    @ParameterizedTest(name = "AQE {0}")
    @ValueSource(booleans = {false, true})
    void dataFrameJoinsReturnWhatSparkReturns(boolean aqe) {
        assertEquals(1, sameAnswer(aqe, "DataFrame join", () -> spark.table("f")
                .join(functions.broadcast(spark.table("d")), "k")
                .groupBy("name").agg(functions.count("id"), functions.max("w"))));
    }

    @ParameterizedTest(name = "AQE {0}")
    @ValueSource(booleans = {false, true})
    void aReusedExchangeStoresItsRelationOnce(boolean aqe) {
        String sql = "SELECT /*+ BROADCAST(d) */ f.id, d.name FROM f JOIN d ON f.k = d.k WHERE f.id < 5000 "
                + "UNION ALL SELECT /*+ BROADCAST(d) */ f.id, d.name FROM f JOIN d ON f.k = d.k WHERE f.id >= 15000";
        assertEquals(1, sameAnswer(aqe, sql));
        spark.conf().set("spark.sql.adaptive.enabled", String.valueOf(aqe));
        Dataset<Row> df = spark.sql(sql);
        df.collect();
        assertTrue(df.queryExecution().executedPlan().toString().contains("ReusedExchange"),
                df.queryExecution().executedPlan().toString());
    }

    private static boolean exists(CreelClient client, String path) {
        try {
            Futures.await(client.lookup(path), Duration.ofSeconds(30), "looking up " + path);
            return true;
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    @Test
    void aStoredRelationStaysWhileItsQueryPlanLivesAndTheCleanerRemovesItAfter() throws InterruptedException {
        spark.conf().set("spark.sql.adaptive.enabled", "false");
        spark.conf().set(StoreBroadcastRelations.ENABLED, "true");
        String appDir = BroadcastSettings.ROOT_DEFAULT + "/" + spark.sparkContext().applicationId();
        List<String> earlier = children(client, appDir);
        Dataset<Row> df = spark.sql("SELECT /*+ BROADCAST(d) */ f.id, d.name FROM f JOIN d ON f.k = d.k");
        List<String> first = rows(df);
        List<String> files = new java.util.ArrayList<>(children(client, appDir));
        if (earlier != null) {
            files.removeAll(earlier);
        }
        assertEquals(1, files.size(), "the query stored one relation: " + files);
        String file = appDir + "/" + files.get(0);
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(300);
            assertTrue(exists(client, file), "a plan still referenced keeps its relation: " + file);
        }
        assertEquals(first, rows(df), "the same plan runs again");

        df = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (exists(client, file)) {
            assertTrue(System.nanoTime() < deadline, file + " still there 60 s after its plan became unreachable");
            System.gc();
            Thread.sleep(200);
        }
    }

    @Test
    void whenCreelCannotTakeTheRelationTheJoinFallsBackToSparksBroadcastAndSaysWhy() {
        spark.stop();
        spark = null;
        // A storage class no server has: Creel refuses every File.
        SparkConf conf = conf(creel, "broadcast-join-fallback").set(BroadcastSettings.STORAGE_CLASS, "no-such-class");
        SparkSession s = SparkSession.builder().config(conf).getOrCreate();
        try {
            tables(s);
            int before = CreelRelationMode.fallbacks().size();
            String sql = "SELECT /*+ BROADCAST(d) */ f.id, d.name FROM f JOIN d ON f.k = d.k";
            s.conf().set(StoreBroadcastRelations.ENABLED, "false");
            List<String> vanilla = rows(s.sql(sql));
            s.conf().set(StoreBroadcastRelations.ENABLED, "true");
            assertEquals(vanilla, rows(s.sql(sql)));
            List<String> reasons = CreelRelationMode.fallbacks();
            assertEquals(before + 1, reasons.size(), reasons.toString());
            assertTrue(reasons.get(reasons.size() - 1).contains("Spark's own broadcast"), reasons.toString());
        } finally {
            s.stop();
        }
        // The rest of the class runs on a fresh session.
        spark = SparkSession.builder().config(conf(creel, "broadcast-join")).getOrCreate();
        tables(spark);
    }
}
