package io.creel.bench.report;

import io.creel.bench.stats.Spread;
import io.creel.bench.stats.Summary;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One measured point, repeated: the figures of each repetition in the order they were taken.
 * Two points of the same mode with as many repetitions were measured in alternation (the mode
 * runs A, B, A, B, ...), so their repetitions pair up.
 *
 * @param mode   the bench mode that measured it (baseline, kv, lookup, ...)
 * @param series what was measured, e.g. "get same-host dram", "redis GET"
 * @param params the point's parameters (size, clients, inFlight, buffer), in table order
 * @param runs   one summary per repetition, at least one
 */
public record Measurement(String mode, String series, Map<String, Object> params, List<Summary> runs) {
    public Measurement {
        params = Map.copyOf(params);
        runs = List.copyOf(runs);
        if (runs.isEmpty()) {
            throw new IllegalArgumentException(mode + " " + series + ": a measurement needs at least one repetition");
        }
    }

    /** A point measured once. */
    public Measurement(String mode, String series, Map<String, Object> params, Summary summary) {
        this(mode, series, params, List.of(summary));
    }

    /** A numeric parameter, or -1 if absent. */
    public long param(String name) {
        Object v = params.get(name);
        return v instanceof Number n ? n.longValue() : -1;
    }

    /** Median and min–max of one figure over the repetitions. */
    public Spread spread(ToDoubleFunction<Summary> figure) {
        return Spread.of(runs, figure);
    }

    /** The median of one figure over the repetitions. */
    public double median(ToDoubleFunction<Summary> figure) {
        return spread(figure).median();
    }

    /** One figure of each repetition, in the order taken. */
    public double[] values(ToDoubleFunction<Summary> figure) {
        return runs.stream().mapToDouble(figure).toArray();
    }
}
