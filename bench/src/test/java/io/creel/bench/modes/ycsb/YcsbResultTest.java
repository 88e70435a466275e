package io.creel.bench.modes.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class YcsbResultTest {
    /** The shape of YCSB 0.17's text summary of a workload F run with a few failures. */
    private static final List<String> RUN = List.of(
            "Loading workload...",
            "[OVERALL], RunTime(ms), 2000",
            "[OVERALL], Throughput(ops/sec), 500.0",
            "[TOTAL_GCS_G1_Young_Generation], Count, 3",
            "[READ], Operations, 997",
            "[READ], AverageLatency(us), 310.5",
            "[READ], 50thPercentileLatency(us), 250",
            "[READ], 99thPercentileLatency(us), 1900",
            "[READ], Return=OK, 997",
            "[READ], Return=NOT_FOUND, 3",
            "[READ-FAILED], Operations, 3",
            "[UPDATE], Return=ERROR, 2",
            "[UPDATE-FAILED], Operations, 2",
            "[READ-MODIFY-WRITE], Operations, 500",
            "[READ-MODIFY-WRITE], 50thPercentileLatency(us), 700",
            "[VERIFY], Operations, 1000",
            "[VERIFY], Return=OK, 996",
            "[VERIFY], Return=UNEXPECTED_STATE, 4",
            "[CLEANUP], Operations, 4",
            "[CLEANUP], Return=OK, 4");

    @Test
    void theSummaryIsReadPerOperation() {
        YcsbResult r = YcsbResult.parse(RUN);
        assertTrue(r.complete());
        assertEquals(500.0, r.throughput());
        assertEquals(1000, r.done());
        assertEquals(List.of("READ", "UPDATE", "READ-MODIFY-WRITE"), r.operations());
        assertEquals(997, r.succeeded("READ"));
        assertEquals(1000, r.total("READ"));
        assertEquals(Map.of("NOT_FOUND", 3L), r.failures("READ"));
        assertEquals(2, r.total("UPDATE"), "an operation that only failed is still counted");
        assertEquals(500, r.total("READ-MODIFY-WRITE"));
        assertEquals(250, r.percentileMicros("READ", 50));
        assertEquals(1900, r.percentileMicros("READ", 99));
        assertEquals(-1, r.percentileMicros("UPDATE", 50));
        assertEquals(996, r.verified());
        assertEquals(4, r.verificationErrors());
    }

    @Test
    void problemsNameEveryFailedStatusTheCountAndTheIntegrityErrors() {
        List<String> p = YcsbResult.parse(RUN).problems(1200, List.of());
        assertEquals(List.of("READ returned {NOT_FOUND=3}", "UPDATE returned {ERROR=2}",
                "1000 operations done, 1200 expected",
                "data integrity: 4 of 1000 checks failed {UNEXPECTED_STATE=4}"), p);
        List<String> allowed = YcsbResult.parse(RUN).problems(1000, List.of("NOT_FOUND", "ERROR"));
        assertEquals(List.of("data integrity: 4 of 1000 checks failed {UNEXPECTED_STATE=4}"), allowed);
    }

    @Test
    void aRunWithoutItsSummaryIsOneProblem() {
        YcsbResult r = YcsbResult.parse(List.of("Loading workload...", "Exception in thread main",
                "[READ], Operations, not-a-number"));
        assertFalse(r.complete());
        assertEquals(List.of("the run printed no summary (it failed before the end)"), r.problems(10, List.of()));
    }

    @Test
    void aCleanRunHasNoProblems() {
        YcsbResult r = YcsbResult.parse(List.of("[OVERALL], RunTime(ms), 1000", "[OVERALL], Throughput(ops/sec), 20.0",
                "[INSERT], Operations, 20", "[INSERT], Return=OK, 20"));
        assertEquals(List.of(), r.problems(20, List.of()));
    }
}
