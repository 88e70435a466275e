package io.creel.bench.stats;

/**
 * One measurement of a baseline figure, and when in the run it was taken.
 *
 * @param when  where in the run, e.g. "before baseline", "after lookup", "lookup, repetition 2"
 * @param value the figure, in the unit of the target it serves
 */
public record Sample(String when, double value) {
}
