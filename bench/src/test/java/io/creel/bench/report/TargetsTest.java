package io.creel.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TargetsTest {
    private static Summary ops(double opsPerSec, double p99) {
        return new Summary(100, 1, opsPerSec, 0, p99 / 2, p99 / 2, p99, p99, p99);
    }

    private static Summary bytes(double bytesPerSec) {
        return Summary.bandwidth((long) bytesPerSec, 1, 1_000_000_000L);
    }

    private static Ratio target(BenchReport r, String prefix) {
        return r.ratios().stream().filter(x -> x.id().startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no target " + prefix + " in " + r.ratios()));
    }

    @Test
    void lookupsAreComparedWithRedisGetsOfTheSameShapeRepetitionByRepetition() {
        BenchReport r = new BenchReport();
        Map<String, Object> shape16 = Map.of("size", 64, "clients", 50, "inFlight", 16);
        Map<String, Object> shape1 = Map.of("size", 64, "clients", 50, "inFlight", 1);
        r.add(new Measurement("lookup", "redis GET", shape1, List.of(ops(100_000, 50), ops(50_000, 50),
                ops(100_000, 50))));
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 1, "nodes", 10),
                List.of(ops(120_000, 90), ops(60_000, 90), ops(110_000, 90))));
        r.add(new Measurement("lookup", "redis GET", shape16, List.of(ops(200_000, 100), ops(200_000, 100),
                ops(200_000, 100))));
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 16, "nodes", 10),
                List.of(ops(150_000, 250), ops(150_000, 150), ops(150_000, 300))));
        Targets.compute(r);

        Ratio at1 = target(r, "3 lookup 50x1 vs Redis GET");
        assertEquals(110_000 / 100_000.0, at1.value(), 1e-12);
        assertTrue(at1.paired());
        assertEquals(1.1, at1.low(), 1e-12); // the slow second repetition hit both sides alike
        assertEquals(1.2, at1.high(), 1e-12);
        assertTrue(at1.met());

        Ratio at16 = target(r, "3 lookup 50x16 vs Redis GET");
        assertEquals(0.75, at16.value(), 1e-12);
        assertEquals("missed", at16.verdict());

        Ratio p99 = target(r, "3 lookup p99 50x16");
        assertEquals(2.5, p99.value(), 1e-12);
        assertFalse(p99.met());
        assertEquals("<= 2.0x", p99.goalText());
    }

    @Test
    void createsAreComparedWithRedisSetsInThroughputAndP99() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("create", "redis SET", Map.of("size", 64, "clients", 50, "inFlight", 16),
                ops(200_000, 100)));
        r.add(new Measurement("create", "create+commit KeyValue", Map.of("clients", 50, "inFlight", 16),
                ops(120_000, 150)));
        Targets.compute(r);
        assertEquals(0.6, target(r, "3 create KeyValue 50x16").value(), 1e-12);
        assertTrue(target(r, "3 create KeyValue 50x16").met());
        assertEquals(1.5, target(r, "3 create p99 50x16").value(), 1e-12);
        assertTrue(target(r, "3 create p99 50x16").met());
    }

    @Test
    void bandwidthIsComparedWithTheSocketsBestBufferSizeByItsMedian() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("baseline", "tcp socket bandwidth", Map.of("buffer", 1024),
                List.of(bytes(1e9), bytes(9e9), bytes(1e9)))); // one lucky repetition does not make it the best
        r.add(new Measurement("baseline", "tcp socket bandwidth", Map.of("buffer", 65536),
                List.of(bytes(4e9), bytes(4e9), bytes(4e9))));
        r.add(new Measurement("read", "read direct tcp dram", Map.of("buffer", 65536),
                List.of(bytes(3e9), bytes(3e9), bytes(3e9))));
        Targets.compute(r);
        Ratio read = target(r, "2 read direct tcp 64K");
        assertEquals(0.75, read.value(), 1e-12);
        assertFalse(read.paired());
    }

    @Test
    void userLevelTransfersAreComparedWithCatCpAndTheSocket() {
        BenchReport r = new BenchReport();
        Map<String, Object> size = Map.of("size", 1L << 30);
        r.add(new Measurement("user", "cp into tmpfs", size, bytes(1000e6)));
        r.add(new Measurement("user", "api put same-host (fresh JVM)", size, bytes(800e6)));
        r.add(new Measurement("user", "cat from tmpfs", size, bytes(8000e6)));
        r.add(new Measurement("user", "api get same-host (fresh JVM)", size, bytes(4000e6)));
        r.add(new Measurement("user", "socket transfer", size, bytes(3000e6)));
        r.add(new Measurement("user", "api get tcp (fresh JVM)", size, bytes(2700e6)));
        Targets.compute(r);
        assertEquals(0.5, target(r, "2 API (fresh JVM) get 1G same-host vs cat").value(), 1e-12);
        assertTrue(target(r, "2 API (fresh JVM) get 1G same-host vs cat").met());
        assertEquals(0.9, target(r, "2 API (fresh JVM) get 1G tcp vs socket").value(), 1e-12);
        assertEquals(0.8, target(r, "2 API (fresh JVM) put 1G vs cp").value(), 1e-12);
        // The bin/creel fs figures are fs-bulk.sh's, not the bench's: no such targets here.
        assertTrue(r.ratios().stream().noneMatch(x -> x.id().startsWith("2 fs ")));
    }

    @Test
    void targetsWithoutBothFiguresAreLeftOut() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 16), ops(1, 1)));
        r.add(new Measurement("kv", "get tcp dram", Map.of("size", 1024L), ops(1, 1)));
        Targets.compute(r);
        assertTrue(r.ratios().isEmpty());
    }

    @Test
    void aBaselinesCheckpointSamplesJoinItsRepetitionsAndCanUnsettleTheVerdict() {
        BenchReport r = new BenchReport();
        Map<String, Object> shape = Map.of("size", 64, "clients", 50, "inFlight", 16);
        r.add(new Measurement("lookup", "redis GET", shape, List.of(ops(100_000, 50), ops(100_000, 50),
                ops(100_000, 50))));
        r.add(new Measurement("lookup", "lookup", Map.of("clients", 50, "inFlight", 16, "nodes", 10),
                List.of(ops(120_000, 90), ops(120_000, 90), ops(120_000, 90))));
        r.baselineSample(new BaselineSample("redis GET", shape, "before lookup", ops(40_000, 50)));
        r.baselineSample(new BaselineSample("redis GET", Map.of("size", 64, "clients", 50, "inFlight", 1),
                "before lookup", ops(1, 50))); // another point: not this target's
        r.baselineSample(new BaselineSample("redis GET", shape, "after lookup", ops(100_000, 50)));
        Targets.compute(r);

        Ratio at16 = target(r, "3 lookup 50x16 vs Redis GET");
        assertEquals(5, at16.baseline().count());
        assertEquals(100_000, at16.baseline().median());
        assertEquals(1.2, at16.value(), 1e-12);
        assertEquals(0.6, at16.baseline().deviation(), 1e-12);
        assertEquals("unsettled", at16.verdict());
        assertEquals("before lookup", at16.baselineSamples().get(3).when());
        assertEquals(40_000, at16.baselineSamples().get(3).value());
    }
}
