package io.creel.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.common.conf.ConfKeys;
import io.creel.minicluster.MiniCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code creel ycsb}: YCSB's client with the binding against a running cluster, and what its exit code says. */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class YcsbCommandTest {
    private static MiniCluster cluster;

    @BeforeAll
    static void start() {
        cluster = MiniCluster.builder().dram(128L << 20).disk(128L << 20).temporaryDirectories()
                .set(ConfKeys.BLOCK_SIZE, "64k").start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static int ycsb(String... args) {
        List<String> all = new ArrayList<>(List.of("ycsb"));
        all.addAll(List.of(args));
        all.addAll(List.of("--conf", "creel.namenode.address=" + cluster.address().toUri(), "--conf",
                "creel.block.size=64k", "--timeout", "3m"));
        return CreelMain.run(all.toArray(String[]::new));
    }

    @Test
    void aLoadAndAVerifiedRunSucceed() {
        assertEquals(0, ycsb("load", "c", "-p", "recordcount=200", "-p", "table=cmd_c", "-p", "dataintegrity=true",
                "-threads", "2"));
        assertEquals(0, ycsb("run", "workloadc", "-p", "recordcount=200", "-p", "operationcount=300", "-p",
                "table=cmd_c", "-p", "dataintegrity=true", "-threads", "2"));
    }

    @Test
    void aRunOverATableNeverLoadedFailsBecauseItsReadsFindNothing() {
        assertEquals(1, ycsb("run", "c", "-p", "recordcount=50", "-p", "operationcount=50", "-p", "table=cmd_empty"));
    }

    @Test
    void aVerifiedRunOverRecordsLoadedWithoutDataIntegrityFailsItsChecks() {
        // Without dataintegrity the load writes random values; the run's checks expect deterministic ones.
        assertEquals(0, ycsb("load", "c", "-p", "recordcount=50", "-p", "table=cmd_unverified"));
        assertEquals(1, ycsb("run", "c", "-p", "recordcount=50", "-p", "operationcount=50", "-p",
                "table=cmd_unverified", "-p", "dataintegrity=true"));
    }

    @Test
    void workloadELoadsAnOrderedTableAndItsScansSucceed() {
        assertEquals(0, ycsb("load", "e", "-p", "recordcount=100", "-p", "table=cmd_e", "-p", "dataintegrity=true"));
        assertEquals(0, ycsb("run", "e", "-p", "recordcount=100", "-p", "operationcount=100", "-p", "table=cmd_e",
                "-p", "dataintegrity=true"));
    }

    @Test
    void workloadEOverATableLoadedByAWorkloadThatDoesNotScanFailsItsScans() {
        // Loaded by workload C, the Table keeps no key order: every scan is an ERROR, so the command fails.
        assertEquals(0, ycsb("load", "c", "-p", "recordcount=50", "-p", "table=cmd_e_unordered"));
        assertEquals(1, ycsb("run", "e", "-p", "recordcount=50", "-p", "operationcount=50", "-p",
                "table=cmd_e_unordered"));
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyClientStarts() {
        assertEquals(1, ycsb("run", "z"));
        assertEquals(1, ycsb("walk", "a"));
        assertEquals(1, ycsb("run", "a", "-p", "operationcount=many"));
        assertEquals(2, ycsb("run", "a", "--conf", "creel.ycsb.rooot=/x"));
    }
}
