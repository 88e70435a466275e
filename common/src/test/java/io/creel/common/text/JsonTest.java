package io.creel.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void objectsKeepTheMapsOrderAndNestArraysAndScalars() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "dram");
        m.put("bytes", 1L << 40);
        m.put("ok", true);
        m.put("ratio", 0.25);
        m.put("none", null);
        m.put("list", List.of(1, "two", List.of()));
        assertEquals("{\"name\":\"dram\",\"bytes\":1099511627776,\"ok\":true,\"ratio\":0.25,\"none\":null,"
                + "\"list\":[1,\"two\",[]]}", Json.write(m));
    }

    @Test
    void stringsEscapeQuotesBackslashesAndControlCharacters() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\\u2028\"", Json.write("a\"b\\c\nd\u0001\u2028"));
    }

    @Test
    void wholeDoublesPrintAsIntegersAndNonNumbersAreRefused() {
        assertEquals("[3,1.5]", Json.write(Arrays.asList(3.0, 1.5)));
        assertThrows(IllegalArgumentException.class, () -> Json.write(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Json.write(new Object()));
    }
}
