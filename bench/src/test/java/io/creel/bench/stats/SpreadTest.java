package io.creel.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadTest {
    @Test
    void theMedianOfAnOddCountIsTheMiddleValueWhateverTheOrder() {
        Spread s = Spread.of(30, 10, 20);
        assertEquals(20, s.median());
        assertEquals(10, s.min());
        assertEquals(30, s.max());
        assertEquals(3, s.count());
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
        assertEquals(25, Spread.of(40, 10, 20, 30).median());
        assertEquals(15, Spread.of(20, 10).median());
    }

    @Test
    void oneDisturbedRepetitionMovesTheRangeButNotTheMedian() {
        Spread s = Spread.of(100, 101, 3);
        assertEquals(100, s.median());
        assertEquals(3, s.min());
        assertEquals(0.98, s.relativeWidth(), 1e-12);
    }

    @Test
    void aSingleValueIsItsOwnMedianMinimumAndMaximum() {
        Spread s = Spread.of(7.5);
        assertEquals(7.5, s.median());
        assertEquals(7.5, s.min());
        assertEquals(7.5, s.max());
        assertEquals(0, s.relativeWidth());
    }

    @Test
    void noValuesIsNotMeasured() {
        Spread s = Spread.of();
        assertFalse(s.measured());
        assertEquals(Spread.NONE, s);
        assertTrue(Double.isNaN(s.median()));
    }

    @Test
    void aNaNValueIsRefusedRatherThanSortedSomewhere() {
        assertThrows(IllegalArgumentException.class, () -> Spread.of(1, Double.NaN, 3));
    }

    @Test
    void theSpreadOfSummariesIsTakenOverTheChosenFigure() {
        List<Summary> runs = List.of(new Summary(1, 1, 300, 0, 1, 5, 9, 9, 9), new Summary(1, 1, 100, 0, 1, 7, 9, 9, 9),
                new Summary(1, 1, 200, 0, 1, 6, 9, 9, 9));
        assertEquals(200, Spread.of(runs, Summary::opsPerSec).median());
        assertEquals(5, Spread.of(runs, Summary::p50Micros).min());
    }

    @Test
    void theDeviationIsTheLargerDistanceFromTheMedianOverTheMedian() {
        assertEquals(0.5, Spread.of(50, 100, 110).deviation(), 1e-12);
        assertEquals(0.3, Spread.of(95, 100, 130).deviation(), 1e-12);
        assertEquals(2.0, Spread.of(100, 100, 300).deviation(), 1e-12);
        // the mean of the middle two for an even count: median 15, max 30 is 100 % away
        assertEquals(1.0, Spread.of(10, 10, 20, 30).deviation(), 1e-12);
    }

    @Test
    void aSingleOrSteadyValueDidNotMoveAndNoValueHasNoDeviation() {
        assertEquals(0, Spread.of(7.5).deviation());
        assertEquals(0, Spread.of(3, 3, 3).deviation());
        assertTrue(Double.isNaN(Spread.NONE.deviation()));
        assertTrue(Double.isNaN(Spread.of(0, 0, 0).deviation()));
    }
}
