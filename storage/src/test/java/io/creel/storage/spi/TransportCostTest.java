package io.creel.storage.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TransportCostTest {
    @Test
    void theTableIsWrittenCheapestFirst() {
        TransportCost[] rows = TransportCost.values();
        for (int i = 1; i < rows.length; i++) {
            assertTrue(rows[i - 1].value() <= rows[i].value(), rows[i - 1] + " is listed before the cheaper " + rows[i]);
        }
    }

    @Test
    void sameHostAccessComesFirstAndTcpThroughTheServerIsTheFallbackOfAll() {
        List<TransportCost> rows = List.of(TransportCost.values());
        assertEquals(TransportCost.SAME_HOST_MEMORY, rows.get(0));
        TransportCost last = rows.get(rows.size() - 1);
        assertEquals(TransportCost.SERVER_OVER_TCP, last);
        assertTrue(rows.stream().filter(r -> r != last).allMatch(r -> r.value() < last.value()),
                "every other path is cheaper than TCP through the server");
    }
}
