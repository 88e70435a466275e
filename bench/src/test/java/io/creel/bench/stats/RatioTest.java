package io.creel.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RatioTest {
    @Test
    void throughputTargetIsMetAtOrAboveTheGoal() {
        Ratio r = Ratio.atLeast("t", 90, 100, "ops/s", 0.9);
        assertEquals(0.9, r.value(), 1e-12);
        assertTrue(r.met());
        assertEquals("met", r.verdict());
        assertFalse(Ratio.atLeast("t", 89, 100, "ops/s", 0.9).met());
        assertEquals("NOT met", Ratio.atLeast("t", 89, 100, "ops/s", 0.9).verdict());
    }

    @Test
    void latencyTargetIsMetAtOrBelowTheGoal() {
        assertTrue(Ratio.atMost("t", 30, 20, "us", 1.5).met());
        assertFalse(Ratio.atMost("t", 31, 20, "us", 1.5).met());
        assertEquals(1.55, Ratio.atMost("t", 31, 20, "us", 1.5).value(), 1e-12);
    }

    @Test
    void aMissingBaselineIsNotMeasuredNeverMet() {
        Ratio r = Ratio.atLeast("t", 100, 0, "ops/s", 1.0);
        assertFalse(r.measurable());
        assertFalse(r.met());
        assertTrue(Double.isNaN(r.value()));
        assertEquals("not measured", r.verdict());
        assertFalse(Ratio.atMost("t", Double.NaN, 10, "us", 1.0).measurable());
    }

    @Test
    void goalTextSaysTheDirection() {
        assertEquals(">= 0.5x", Ratio.atLeast("t", 1, 1, "", 0.5).goalText());
        assertEquals("<= 1.5x", Ratio.atMost("t", 1, 1, "", 1.5).goalText());
    }
}
