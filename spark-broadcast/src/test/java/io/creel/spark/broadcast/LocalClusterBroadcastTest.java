package io.creel.spark.broadcast;

import static io.creel.spark.broadcast.BroadcastFixture.digest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.spark.common.CreelTestCluster;
import io.creel.spark.common.LocalClusterMode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import io.creel.spark.broadcast.sql.CreelRelationMode;
import io.creel.spark.broadcast.sql.CreelSqlExtensions;
import io.creel.spark.broadcast.sql.StoreBroadcastRelations;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Broadcasts read by tasks in two executor JVMs ({@code local-cluster}): every executor sees a
 * value equal to the driver's and reads it from Creel once whatever the number of its tasks;
 * unpersist makes executors read again; destroy removes the File and later use fails clearly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LocalClusterBroadcastTest {
    private static final int EXECUTORS = 2;
    private static final int TASKS = 16;
    private CreelTestCluster creel;
    private CreelClient client;
    private JavaSparkContext sc;

    /** A plain class (no Kryo registration) among the values. */
    static final class Rate implements Serializable {
        private static final long serialVersionUID = 1L;
        final String currency;
        final double perEuro;

        Rate(String currency, double perEuro) {
            this.currency = currency;
            this.perEuro = perEuro;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Rate r && r.currency.equals(currency) && r.perEuro == perEuro;
        }

        @Override
        public int hashCode() {
            return Objects.hash(currency, perEuro);
        }

        @Override
        public String toString() {
            return currency + "=" + perEuro;
        }
    }

    @BeforeAll
    void start() throws InterruptedException {
        creel = CreelTestCluster.start(256L << 20, 256L << 20);
        client = CreelClient.connect(creel.cluster().clientConf());
        sc = new JavaSparkContext(LocalClusterMode.prepare(BroadcastFixture.conf(creel,
                LocalClusterMode.master(EXECUTORS, 1024), "broadcast-local-cluster")
                .set("spark.sql.extensions", CreelSqlExtensions.class.getName())
                .set("spark.sql.autoBroadcastJoinThreshold", "-1")));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (sc.sc().statusTracker().getExecutorInfos().length < EXECUTORS + 1) {
            assertTrue(System.nanoTime() < deadline, "executors did not register within 60 s");
            Thread.sleep(100);
        }
    }

    @AfterAll
    void stop() {
        try {
            if (sc != null) {
                sc.stop();
            }
            if (client != null) {
                assertEquals(List.of(), BroadcastFixture.leftUnderRoot(client),
                        "the application's broadcasts are gone when it ends");
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

    /** executor id -> broadcast index -> "digest reads" as every task saw it. */
    private Map<String, Map<Integer, Set<String>>> readEverywhere(List<Broadcast<Object>> broadcasts) {
        List<String> seen = sc.parallelize(IntStream.range(0, TASKS).boxed().toList(), TASKS).flatMap(i -> {
            List<String> out = new ArrayList<>();
            for (int k = 0; k < broadcasts.size(); k++) {
                Broadcast<Object> b = broadcasts.get(k);
                String d = digest(b.value());
                long reads = BroadcastReader.readsFromCreel(((StoredBroadcast<Object>) b).path());
                out.add(SparkEnv.get().executorId() + "|" + k + "|" + d + " reads=" + reads);
            }
            return out.iterator();
        }).collect();
        Map<String, Map<Integer, Set<String>>> byExecutor = new TreeMap<>();
        for (String s : seen) {
            String[] p = s.split("\\|", 3);
            byExecutor.computeIfAbsent(p[0], e -> new TreeMap<>())
                    .computeIfAbsent(Integer.parseInt(p[1]), k -> new TreeSet<>()).add(p[2]);
        }
        return byExecutor;
    }

    private static Map<Integer, Set<String>> expected(List<Object> values, long reads) {
        Map<Integer, Set<String>> m = new TreeMap<>();
        for (int k = 0; k < values.size(); k++) {
            m.put(k, Set.of(digest(values.get(k)) + " reads=" + reads));
        }
        return m;
    }

    @Test
    void valuesOfManyTypesAndSizesReadBackEqualOnEveryExecutorWhichReadsEachOnce() {
        Map<String, List<Integer>> nested = new HashMap<>();
        // Mutable collections: Kryo (Spark's and so torrent broadcast's too) cannot rebuild List.of's.
        nested.put("primes", new ArrayList<>(List.of(2, 3, 5, 7, 11)));
        nested.put("empty", new ArrayList<>());
        List<Object> values = new ArrayList<>(List.of(
                BroadcastFixture.bytes(1, 1),                       // 1 B
                BroadcastFixture.bytes((64 << 10) - 3, 2),          // just under a 64 KiB block
                BroadcastFixture.bytes((64 << 10) + 3, 3),          // just over
                BroadcastFixture.bytes((3 << 20) + 7, 4),           // several blocks
                "",
                "Grüße, 世界 \uD83D\uDE00",
                nested,
                IntStream.range(0, 100_000).asLongStream().map(i -> i * i).toArray(),
                new Rate("CHF", 0.93),
                CollectionConverters.asScala(List.of("a", "b", "c")).toList()));
        values.add(null);
        List<Broadcast<Object>> broadcasts = new ArrayList<>();
        for (Object v : values) {
            Broadcast<Object> b = CreelBroadcast.broadcast(sc, v);
            assertTrue(CreelBroadcast.isCreel(b));
            assertTrue(BroadcastFixture.exists(client, ((StoredBroadcast<Object>) b).path()), "written once by the driver");
            broadcasts.add(b);
        }

        Map<String, Map<Integer, Set<String>>> seen = readEverywhere(broadcasts);
        assertEquals(EXECUTORS, seen.size(), "tasks ran on every executor: " + seen.keySet());
        for (Map.Entry<String, Map<Integer, Set<String>>> e : seen.entrySet()) {
            assertEquals(expected(values, 1), e.getValue(), "executor " + e.getKey());
        }
        for (int k = 0; k < values.size(); k++) {
            assertEquals(digest(values.get(k)), digest(broadcasts.get(k).value()), "the driver's value");
        }
    }

    @Test
    void unpersistDropsExecutorCopiesSoTheNextUseReadsCreelAgain() {
        byte[] v = BroadcastFixture.bytes(200_000, 5);
        Broadcast<Object> b = CreelBroadcast.broadcast(sc, v);
        List<Broadcast<Object>> one = List.of(b);
        readEverywhere(one).values().forEach(m -> assertEquals(expected(List.of(v), 1), m));

        b.unpersist(true);
        assertTrue(BroadcastFixture.exists(client, ((StoredBroadcast<Object>) b).path()), "unpersist keeps the File");
        readEverywhere(one).values().forEach(m -> assertEquals(expected(List.of(v), 2), m));
    }

    @Test
    void destroyRemovesTheFileAndLaterUseFailsNamingTheBroadcast() {
        Broadcast<Object> b = CreelBroadcast.broadcast(sc, "short-lived");
        String path = ((StoredBroadcast<Object>) b).path();
        List<Broadcast<Object>> one = List.of(b);
        assertEquals(EXECUTORS, readEverywhere(one).size());

        b.destroy();
        assertFalse(BroadcastFixture.exists(client, path), path + " must be gone");
        assertFalse(b.isValid());
        SparkException e = assertThrows(SparkException.class, () -> readEverywhere(one));
        assertTrue(String.valueOf(e.getMessage()).contains("destroyed"), e.getMessage());
    }

    @Test
    void aFileRemovedBehindSparksBackFailsTheTaskNamingTheFile() {
        Broadcast<Object> b = CreelBroadcast.broadcast(sc, BroadcastFixture.bytes(1000, 6));
        String path = ((StoredBroadcast<Object>) b).path();
        io.creel.client.Futures.await(client.delete(path, false), BroadcastFixture.TIMEOUT, "removing " + path);
        SparkException e = assertThrows(SparkException.class, () -> readEverywhere(List.of(b)));
        String all = causes(e);
        assertTrue(all.contains(path) && all.contains("cannot read"), all);
    }

    @Test
    void aBroadcastJoinReadsItsRelationFromCreelInEveryExecutorAndReturnsSparksAnswer() {
        SparkSession spark = SparkSession.builder().sparkContext(sc.sc()).getOrCreate();
        spark.range(0, 50_000, 1, 8).selectExpr("id", "CAST(id % 1000 AS INT) AS k").createOrReplaceTempView("facts");
        spark.range(0, 2000).selectExpr("CAST(id AS INT) AS k", "concat('v', id) AS v").createOrReplaceTempView("dim");
        String sql = "SELECT /*+ BROADCAST(dim) */ facts.id, dim.v FROM facts JOIN dim ON facts.k = dim.k";
        spark.conf().set(StoreBroadcastRelations.ENABLED, "false");
        List<String> vanilla = spark.sql(sql).collectAsList().stream().map(Object::toString).sorted().toList();
        spark.conf().set(StoreBroadcastRelations.ENABLED, "true");
        long stored = CreelRelationMode.stored();
        List<String> withCreel = spark.sql(sql).collectAsList().stream().map(Object::toString).sorted().toList();
        assertEquals(stored + 1, CreelRelationMode.stored(), "the relation went to Creel: " + CreelRelationMode.fallbacks());
        assertEquals(50_000, vanilla.size());
        assertEquals(vanilla, withCreel);
    }

    static String causes(Throwable t) {
        List<String> m = new ArrayList<>();
        for (Throwable c = t; c != null; c = c.getCause()) {
            m.add(String.valueOf(c.getMessage()));
        }
        return m.stream().collect(Collectors.joining(" <- "));
    }
}
