package io.creel.bench.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchReportTest {
    private static String print(java.util.function.Consumer<PrintStream> p) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        p.accept(out);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void repeatedPointsPrintTheirMedianAndRange() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 16), List.of(
                new Summary(1, 1, 1000, 0, 10, 10, 30, 40, 50), new Summary(1, 1, 3000, 0, 10, 12, 20, 40, 50),
                new Summary(1, 1, 2000, 0, 10, 11, 25, 40, 50))));
        r.ratio(Ratio.of("3 x", "ops/s", io.creel.bench.stats.Goal.atLeast(1), new double[] {1000, 3000, 2000},
                new double[] {1000, 1000, 1000}, true));
        String text = print(r::printResults);
        assertTrue(text.contains("| 2,000 (1,000-3,000) |"), text);
        assertTrue(text.contains("| 11.0 (10.0-12.0) |"), text);
        assertTrue(text.contains("2.00 (1.00-3.00)"), text);
        assertTrue(text.contains("## Targets"), text);
        assertTrue(text.contains("| 1,000 (1,000-1,000) |"), text); // the baseline's median (min-max)
        assertTrue(text.contains(" 0.0 % of 3 |"), text); // its spread and how many samples
        assertTrue(text.contains("## Baseline samples"), text);
        assertTrue(text.contains("| ops/s | in the mode, repetition 2 | 1,000 |"), text);
    }

    @Test
    void factsLearnedAfterTheHeaderArePrintedAtTheEndOnly() {
        BenchReport r = new BenchReport();
        r.fact("cpus", "2");
        String head = print(out -> r.printFacts(out, "Creel bench"));
        assertTrue(head.startsWith("# Creel bench"), head);
        assertTrue(head.contains("| cpus | 2     |"), head);
        r.fact("load average at end", "1.00 1.00 1.00");
        String tail = print(r::printResults);
        assertTrue(tail.contains("## End of the run"), tail);
        assertTrue(tail.contains("load average at end"), tail);
        assertFalse(tail.contains("| cpus"), tail);
    }

    @Test
    void theJsonReportHoldsEveryRepetition() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("kv", "get tcp dram", Map.of("size", 4L), List.of(
                new Summary(1, 1, 1, 4, 10, 10, 10, 10, 10), new Summary(1, 1, 3, 4, 10, 10, 10, 10, 10))));
        String json = r.toJson();
        assertTrue(json.contains("\"runs\": ["), json);
        assertTrue(json.contains("\"median\": 2"), json);
    }

    @Test
    void everyCheckpointSampleOfABaselineIsPrintedWithItsModesRepetitionsAndSpread() {
        BenchReport r = new BenchReport();
        Map<String, Object> point = Map.of("size", 64 << 20);
        r.add(new Measurement("baseline", "memory copy", point, List.of(Summary.bandwidth(100_000_000, 1,
                1_000_000_000L), Summary.bandwidth(100_000_000, 1, 1_000_000_000L))));
        r.baselineSample(new BaselineSample("memory copy", point, "before baseline",
                Summary.bandwidth(200_000_000, 1, 1_000_000_000L)));
        r.baselineSample(new BaselineSample("memory copy", point, "after kv",
                Summary.bandwidth(100_000_000, 1, 1_000_000_000L)));
        String text = print(r::printResults);
        assertTrue(text.contains("## Baselines across the run"), text);
        assertTrue(text.contains("| r1 100; r2 100; before baseline 200; after kv 100 |"), text);
        assertTrue(text.contains(" 100 (100-200) | 100.0 % |"), text);
    }
}
