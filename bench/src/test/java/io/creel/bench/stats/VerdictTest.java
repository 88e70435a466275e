package io.creel.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class VerdictTest {
    private static final Goal AT_LEAST = Goal.atLeast(0.9);
    private static final Goal AT_MOST = Goal.atMost(2.0);
    /** A baseline that held still. */
    private static final Spread STEADY = Spread.of(100, 100, 100);

    @Test
    void aRatioAtTheGoalIsMetAndJustBelowItMissed() {
        assertEquals(Verdict.MET, Verdict.of(AT_LEAST, 0.9, STEADY));
        assertEquals(Verdict.MET, Verdict.of(AT_LEAST, 1.5, STEADY));
        assertEquals(Verdict.MISSED, Verdict.of(AT_LEAST, 0.8999, STEADY));
    }

    @Test
    void anAtMostGoalIsMetAtOrBelowIt() {
        assertEquals(Verdict.MET, Verdict.of(AT_MOST, 2.0, STEADY));
        assertEquals(Verdict.MET, Verdict.of(AT_MOST, 0.5, STEADY));
        assertEquals(Verdict.MISSED, Verdict.of(AT_MOST, 2.0001, STEADY));
    }

    @Test
    void aBaselineThatMovedExactlyThirtyPercentIsStillSettled() {
        assertEquals(Verdict.MET, Verdict.of(AT_LEAST, 1.0, Spread.of(70, 100, 130)));
        assertEquals(Verdict.MISSED, Verdict.of(AT_LEAST, 0.5, Spread.of(100, 130, 100)));
        assertEquals(Verdict.MET, Verdict.of(AT_LEAST, 1.0, Spread.of(0.7, 1.0, 1.0)));
    }

    @Test
    void aBaselineThatMovedMoreThanThirtyPercentEitherWayIsUnsettledWhateverTheRatio() {
        assertEquals(Verdict.UNSETTLED, Verdict.of(AT_LEAST, 5.0, Spread.of(100, 100, 130.1)));
        assertEquals(Verdict.UNSETTLED, Verdict.of(AT_LEAST, 0.1, Spread.of(69.9, 100, 100)));
        assertEquals(Verdict.UNSETTLED, Verdict.of(AT_MOST, 1.0, Spread.of(100, 100, 100, 100, 300)));
    }

    @Test
    void aMissingFigureIsNotMeasuredBeforeAnythingElse() {
        assertEquals(Verdict.NOT_MEASURED, Verdict.of(AT_LEAST, Double.NaN, STEADY));
        assertEquals(Verdict.NOT_MEASURED, Verdict.of(AT_LEAST, 1.0, Spread.NONE));
    }

    @Test
    void theVerdictsReadAsTheReportPrintsThem() {
        assertEquals("met", Verdict.MET.text());
        assertEquals("missed", Verdict.MISSED.text());
        assertEquals("unsettled", Verdict.UNSETTLED.text());
        assertEquals("not measured", Verdict.NOT_MEASURED.text());
        assertEquals(30, Verdict.MAX_BASELINE_DEVIATION_PERCENT);
    }
}
