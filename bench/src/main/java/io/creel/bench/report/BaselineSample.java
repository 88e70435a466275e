package io.creel.bench.report;

import io.creel.bench.stats.Summary;
import java.util.Map;

/**
 * One sample of a baseline point taken outside the mode that compares it, at a checkpoint of the
 * run (before the first mode, between two modes, after the last): the same series and parameters as
 * the mode's {@link Measurement} of it, so that a target's baseline gathers all of them.
 *
 * @param series  the baseline's series, e.g. "memory copy", "redis GET"
 * @param params  the point's parameters, equal to those of the mode's measurement
 * @param when    the checkpoint, e.g. "before baseline", "after lookup"
 * @param summary what the sample measured
 */
public record BaselineSample(String series, Map<String, Object> params, String when, Summary summary) {
    public BaselineSample {
        params = Map.copyOf(params);
    }

    /** Whether this is a sample of {@code m}'s point. */
    public boolean of(Measurement m) {
        return series.equals(m.series()) && params.equals(m.params());
    }
}
