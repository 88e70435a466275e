package io.creel.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LatencyRecorderTest {
    @Test
    void percentilesOfAUniformSpreadAreItsRanks() {
        LatencyRecorder r = new LatencyRecorder();
        for (int us = 1; us <= 1000; us++) {
            r.record(us * 1000L, 10);
        }
        Summary s = r.summary(2_000_000_000L);
        assertEquals(1000, s.count());
        assertEquals(500, s.p50Micros(), 1.0);
        assertEquals(990, s.p99Micros(), 1.0);
        assertEquals(999, s.p999Micros(), 1.0);
        assertEquals(1000, s.maxMicros(), 1.0);
        assertEquals(500.5, s.meanMicros(), 1.0);
    }

    @Test
    void throughputIsOverTheWallTimeGivenNotTheSumOfLatencies() {
        LatencyRecorder r = new LatencyRecorder();
        for (int i = 0; i < 400; i++) {
            r.record(5_000_000L, 1024); // 400 overlapping operations of 5 ms each
        }
        Summary s = r.summary(2_000_000_000L);
        assertEquals(200.0, s.opsPerSec(), 1e-9);
        assertEquals(400 * 1024 / 2.0, s.bytesPerSec(), 1e-9);
    }

    @Test
    void aSingleSlowOperationShowsOnlyInTheTail() {
        LatencyRecorder r = new LatencyRecorder();
        for (int i = 0; i < 999; i++) {
            r.record(10_000);
        }
        r.record(50_000_000);
        Summary s = r.summary(1_000_000_000L);
        assertEquals(10, s.p50Micros(), 0.1);
        assertEquals(10, s.p99Micros(), 0.1);
        assertEquals(50_000, s.maxMicros(), 50);
    }

    @Test
    void nothingRecordedIsTheEmptySummary() {
        assertEquals(Summary.EMPTY, new LatencyRecorder().summary(1_000_000_000L));
    }

    @Test
    void bandwidthOfAWholeValueIsItsSizeOverTheMedian() {
        Summary s = new Summary(10, 1, 10, 0, 100_000, 100_000, 100_000, 100_000, 100_000); // p50 = 0.1 s
        assertEquals(1280.0, s.p50Bandwidth(128), 1e-9);
        Summary copy = Summary.bandwidth(4_000_000_000L, 4, 2_000_000_000L);
        assertEquals(2e9, copy.bytesPerSec(), 1e-3);
        assertEquals(500_000, copy.p50Micros(), 1e-9);
    }
}
