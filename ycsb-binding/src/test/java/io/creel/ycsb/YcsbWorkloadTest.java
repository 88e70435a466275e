package io.creel.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.bench.modes.ycsb.YcsbProcess;
import io.creel.bench.modes.ycsb.YcsbResult;
import io.creel.minicluster.MiniCluster;
import io.creel.ycsb.redis.RedisHashDB;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * YCSB's own client, in a JVM of its own as the bench runs it, loading and running the standard
 * workload A against an in-JVM cluster with {@code dataintegrity=true}: every value read back is
 * checked against the value YCSB derived for that key and field.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class YcsbWorkloadTest {
    /** Each YCSB client JVM must finish within this (a few seconds when the machine is idle). */
    private static final Duration LIMIT = Duration.ofMinutes(3);
    private static MiniCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    /** The standard workload file {@code name} (a..f) from the binding's jar, as properties. */
    static Map<String, String> workload(String name) {
        String resource = YcsbProcess.WORKLOAD_RESOURCES + "workload" + name;
        try (InputStream in = CreelDB.class.getClassLoader().getResourceAsStream(resource)) {
            assertNotNull(in, resource + " is on the class path");
            Properties p = new Properties();
            p.load(in);
            Map<String, String> out = new LinkedHashMap<>();
            p.stringPropertyNames().stream().sorted().forEach(k -> out.put(k, p.getProperty(k)));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static YcsbProcess creel(YcsbProcess p, String table, Map<String, String> workload) {
        Properties cp = TestCluster.properties(cluster);
        p.properties(workload).property("table", table).property("dataintegrity", "true")
                .property("hdrhistogram.percentiles", "50,99").jvmOption("-Xmx256m")
                .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        cp.stringPropertyNames().forEach(k -> p.property(k, cp.getProperty(k)));
        return p;
    }

    @Test
    void workloadALoadsAndRunsWithEveryValueVerified() {
        Map<String, String> a = workload("a");
        a.put("recordcount", "1000");
        a.put("operationcount", "3000");
        YcsbResult load = creel(YcsbProcess.load(YcsbProcess.CREEL_DB), "ycsb_a", a).threads(4).label("workload a")
                .start(LIMIT);
        assertEquals(List.of(), load.problems(1000, List.of()), "load");
        assertEquals(1000, load.succeeded("INSERT"));

        YcsbResult run = creel(YcsbProcess.run(YcsbProcess.CREEL_DB), "ycsb_a", a).threads(4).label("workload a")
                .start(LIMIT);
        assertEquals(List.of(), run.problems(3000, List.of()), "run");
        assertTrue(run.succeeded("READ") > 1000 && run.succeeded("UPDATE") > 1000,
                "half reads, half updates: " + run.succeeded("READ") + " / " + run.succeeded("UPDATE"));
        assertEquals(run.succeeded("READ"), run.verified(), "every read was verified");
        assertEquals(0, run.verificationErrors());
        assertTrue(run.percentileMicros("READ", 50) > 0 && run.percentileMicros("READ", 99)
                >= run.percentileMicros("READ", 50));
    }

    @Test
    void workloadELoadsAnOrderedTableAndRunsItsScansAndInsertsWithoutAFailure() {
        Map<String, String> e = workload("e");
        e.put("recordcount", "1000");
        e.put("operationcount", "600");
        YcsbResult load = creel(YcsbProcess.load(YcsbProcess.CREEL_DB), "ycsb_e", e).threads(4).label("workload e")
                .start(LIMIT);
        assertEquals(List.of(), load.problems(1000, List.of()), "load");
        YcsbResult run = creel(YcsbProcess.run(YcsbProcess.CREEL_DB), "ycsb_e", e).threads(4).label("workload e")
                .start(LIMIT);
        assertEquals(List.of(), run.problems(600, List.of()), "run: every scan and insert returned OK");
        assertTrue(run.succeeded("SCAN") > 500, "95% scans: " + run.succeeded("SCAN"));
        assertTrue(run.succeeded("INSERT") > 5, "5% inserts: " + run.succeeded("INSERT"));
        assertEquals(0, run.verificationErrors());
    }

    @Test
    void aValueThatIsNotWhatYcsbWroteFailsVerification() {
        // Loaded with 100-byte fields, verified as if they were 60 bytes long: every read is wrong.
        Map<String, String> c = workload("c");
        c.put("recordcount", "200");
        c.put("operationcount", "200");
        assertEquals(List.of(), creel(YcsbProcess.load(YcsbProcess.CREEL_DB), "ycsb_wrong", c).threads(2)
                .start(LIMIT).problems(200, List.of()));
        c.put("fieldlength", "60");
        YcsbResult run = creel(YcsbProcess.run(YcsbProcess.CREEL_DB), "ycsb_wrong", c).threads(2).start(LIMIT);
        assertEquals(200, run.verificationErrors());
        assertFalse(run.problems(200, List.of()).isEmpty());
    }

    @Test
    void theNamesTheBenchUsesAreTheBindingsClassesAndWorkloads() throws ClassNotFoundException {
        assertEquals(CreelDB.class, Class.forName(YcsbProcess.CREEL_DB));
        assertEquals(RedisHashDB.class, Class.forName(YcsbProcess.REDIS_DB));
        for (String w : List.of("a", "b", "c", "d", "e", "f")) {
            Map<String, String> p = workload(w);
            assertEquals("site.ycsb.workloads.CoreWorkload", p.get("workload"), w);
            double sum = 0;
            for (String k : List.of("readproportion", "updateproportion", "scanproportion", "insertproportion",
                    "readmodifywriteproportion")) {
                sum += Double.parseDouble(p.getOrDefault(k, "0"));
            }
            assertEquals(1.0, sum, 1e-9, "workload " + w + ": proportions add up to 1");
            assertEquals("true", p.get("readallfields"), w);
        }
    }
}
