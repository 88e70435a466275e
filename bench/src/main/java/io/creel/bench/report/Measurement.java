package io.creel.bench.report;

import io.creel.bench.stats.Summary;
import java.util.Map;

/**
 * One measured point.
 *
 * @param mode    the bench mode that measured it (baseline, kv, lookup, ...)
 * @param series  what was measured, e.g. "get same-host dram", "redis GET"
 * @param params  the point's parameters (size, clients, inFlight, buffer), in table order
 * @param summary the figures
 */
public record Measurement(String mode, String series, Map<String, Object> params, Summary summary) {
    public Measurement {
        params = Map.copyOf(params);
    }

    /** A numeric parameter, or -1 if absent. */
    public long param(String name) {
        Object v = params.get(name);
        return v instanceof Number n ? n.longValue() : -1;
    }
}
