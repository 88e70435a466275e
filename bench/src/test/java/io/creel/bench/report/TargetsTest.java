package io.creel.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetsTest {
    private static Summary ops(double opsPerSec, double p50) {
        return new Summary(100, 1, opsPerSec, 0, p50, p50, p50, p50, p50);
    }

    @Test
    void lookupIsComparedWithRedisGetOfTheSameShape() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("baseline", "redis GET", Map.of("size", 64, "clients", 50, "inFlight", 16),
                ops(200_000, 40)));
        r.add(new Measurement("baseline", "redis GET", Map.of("size", 64, "clients", 50, "inFlight", 1),
                ops(100_000, 40)));
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 16, "nodes", 10), ops(150_000, 9)));
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 1, "nodes", 10), ops(120_000, 9)));
        Targets.compute(r);
        List<Ratio> rs = r.ratios();
        assertEquals(2, rs.size());
        assertEquals(1.2, rs.get(0).value(), 1e-12); // 50x1
        assertTrue(rs.get(0).met());
        assertEquals(0.75, rs.get(1).value(), 1e-12); // 50x16
        assertEquals("NOT met", rs.get(1).verdict());
    }

    @Test
    void getLatencyIsComparedAtTheMedianAndBandwidthAgainstTheBestSocketFigure() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("baseline", "redis GET", Map.of("size", 1024, "clients", 1, "inFlight", 1),
                ops(30_000, 20)));
        r.add(new Measurement("kv", "get tcp dram", Map.of("size", 1024L), ops(20_000, 45)));
        r.add(new Measurement("baseline", "tcp socket bandwidth", Map.of("buffer", 1024),
                Summary.bandwidth(1_000_000_000L, 1, 1_000_000_000L)));
        r.add(new Measurement("baseline", "tcp socket bandwidth", Map.of("buffer", 65536),
                Summary.bandwidth(4_000_000_000L, 1, 1_000_000_000L)));
        r.add(new Measurement("read", "read direct tcp dram", Map.of("buffer", 65536),
                new Summary(10, 1, 10, 3_000_000_000.0, 1, 1, 1, 1, 1)));
        Targets.compute(r);
        Ratio get = r.ratios().stream().filter(x -> x.id().startsWith("3 get 1K p50 tcp")).findFirst().orElseThrow();
        assertEquals(2.25, get.value(), 1e-12);
        assertEquals("NOT met", get.verdict());
        Ratio read = r.ratios().stream().filter(x -> x.id().startsWith("5 read tcp 64K")).findFirst().orElseThrow();
        assertEquals(0.75, read.value(), 1e-12);
    }

    @Test
    void targetsWithoutBothFiguresAreLeftOut() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 16), ops(1, 1)));
        Targets.compute(r);
        assertTrue(r.ratios().isEmpty());
    }
}
