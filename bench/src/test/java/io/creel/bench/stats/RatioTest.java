package io.creel.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RatioTest {
    @Test
    void throughputTargetIsMetAtOrAboveTheGoal() {
        Ratio r = Ratio.atLeast("t", 90, 100, "ops/s", 0.9);
        assertEquals(0.9, r.value(), 1e-12);
        assertTrue(r.met());
        assertEquals("met", r.verdict());
        assertFalse(Ratio.atLeast("t", 89, 100, "ops/s", 0.9).met());
        assertEquals("missed", Ratio.atLeast("t", 89, 100, "ops/s", 0.9).verdict());
    }

    @Test
    void latencyTargetIsMetAtOrBelowTheGoal() {
        assertTrue(Ratio.atMost("t", 30, 20, "us", 1.5).met());
        assertFalse(Ratio.atMost("t", 31, 20, "us", 1.5).met());
        assertEquals(1.55, Ratio.atMost("t", 31, 20, "us", 1.5).value(), 1e-12);
    }

    @Test
    void theRatioIsThatOfTheMediansNotOfTheMeans() {
        Ratio r = Ratio.of("t", "ops/s", Goal.atLeast(1.0), new double[] {100, 10, 90}, new double[] {50, 45, 1000},
                false);
        assertEquals(90 / 50.0, r.value(), 1e-12);
        assertEquals(90, r.measured().median());
        assertEquals(50, r.baseline().median());
    }

    @Test
    void pairedFiguresGiveTheRangeOfTheirPerRepetitionRatios() {
        // Both sides slowed down together in the second repetition: the ratio hardly moved.
        Ratio r = Ratio.of("t", "ops/s", Goal.atLeast(0.5), new double[] {80, 40, 82}, new double[] {100, 50, 100},
                true);
        assertTrue(r.paired());
        assertEquals(0.8, r.low(), 1e-12);
        assertEquals(0.82, r.high(), 1e-12);
        assertEquals(0.8, r.value(), 1e-12);
    }

    @Test
    void unpairedFiguresGiveTheWidestRangeTheirSpreadsAllow() {
        Ratio r = Ratio.of("t", "ops/s", Goal.atLeast(0.5), new double[] {80, 40, 82}, new double[] {100, 50, 100},
                false);
        assertFalse(r.paired());
        assertEquals(40 / 100.0, r.low(), 1e-12);
        assertEquals(82 / 50.0, r.high(), 1e-12);
    }

    @Test
    void pairingNeedsAsManyRepetitionsOnBothSides() {
        assertThrows(IllegalArgumentException.class, () -> Ratio.of("t", "ops/s", Goal.atLeast(1),
                new double[] {1, 2}, new double[] {1}, true));
    }

    @Test
    void aSteadyBaselineGivesMetOrMissedAtTheMediansWhateverCreelsOwnRange() {
        Ratio r = Ratio.of("t", "ops/s", Goal.atLeast(1.0), new double[] {90, 120, 95}, new double[] {100, 100, 100},
                true);
        assertEquals("missed", r.verdict());
        assertEquals(Verdict.MISSED, r.judged());
        assertFalse(r.met());
    }

    @Test
    void checkpointSamplesJoinTheBaselineAndItsMedian() {
        Ratio r = Ratio.of("t", "MB/s", Goal.atLeast(0.5), new double[] {60, 60, 60}, new double[] {100, 100, 100},
                true, List.of(new Sample("before baseline", 200), new Sample("after create", 200)));
        assertEquals(5, r.baseline().count());
        assertEquals(5, r.baselineSamples().size());
        assertEquals("in the mode, repetition 1", r.baselineSamples().get(0).when());
        assertEquals("after create", r.baselineSamples().get(4).when());
        assertEquals(100, r.baseline().median());
        assertEquals(0.6, r.value(), 1e-12);
        // no longer paired: the range holds the ratio of the medians
        assertFalse(r.paired());
        assertEquals(0.3, r.low(), 1e-12);
        assertEquals(0.6, r.high(), 1e-12);
        // the baseline doubled at two checkpoints: 100 % from its median
        assertEquals(1.0, r.baseline().deviation(), 1e-12);
        assertEquals("unsettled", r.verdict());
        assertTrue(r.met()); // the medians' ratio meets the goal, but the verdict does not say so
    }

    @Test
    void aMissingBaselineIsNotMeasuredNeverMet() {
        Ratio r = Ratio.atLeast("t", 100, 0, "ops/s", 1.0);
        assertFalse(r.measurable());
        assertFalse(r.met());
        assertTrue(Double.isNaN(r.value()));
        assertEquals("not measured", r.verdict());
        assertFalse(Ratio.atMost("t", Double.NaN, 10, "us", 1.0).measurable());
        assertFalse(Ratio.of("t", "us", Goal.atMost(1), new double[] {}, new double[] {5}, false).measurable());
    }

    @Test
    void goalTextSaysTheDirection() {
        assertEquals(">= 0.5x", Ratio.atLeast("t", 1, 1, "", 0.5).goalText());
        assertEquals("<= 1.5x", Ratio.atMost("t", 1, 1, "", 1.5).goalText());
        assertEquals(">= 1.0x", Goal.atLeast(1).text());
    }

    @Test
    void aGoalMustBeAPositiveRatio() {
        assertThrows(IllegalArgumentException.class, () -> Goal.atLeast(0));
        assertThrows(IllegalArgumentException.class, () -> Goal.atMost(Double.NaN));
    }
}
