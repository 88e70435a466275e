package io.creel.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void writesNestedValuesWithEscapesAndNullForNonFiniteNumbers() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a \"quoted\"\nline");
        m.put("n", 3);
        m.put("x", 2.5);
        m.put("whole", 4.0);
        m.put("nan", Double.NaN);
        m.put("list", List.of(true, "s"));
        String json = Json.write(m).replaceAll("\\s+", "");
        assertEquals("{\"name\":\"a\\\"quoted\\\"\\nline\",\"n\":3,\"x\":2.5,\"whole\":4,\"nan\":null,"
                + "\"list\":[true,\"s\"]}", json);
    }

    @Test
    void reportJsonHoldsPointsAndTargets() {
        BenchReport r = new BenchReport();
        r.add(new Measurement("kv", "get tcp dram", Map.of("size", 4L),
                new io.creel.bench.stats.Summary(1, 1, 1, 4, 10, 10, 10, 10, 10)));
        r.ratio(io.creel.bench.stats.Ratio.atMost("3 x", 10, 5, "us", 1.0));
        String json = r.toJson();
        assertTrue(json.contains("\"series\": \"get tcp dram\""), json);
        assertTrue(json.contains("\"verdict\": \"missed\""), json);
        assertTrue(json.contains("\"baselineDeviation\": 0"), json);
    }
}
