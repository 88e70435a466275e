package io.creel.ops.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Opcode;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentErrorsTest {
    @Test
    void keepsTheNewestFirstAndForgetsTheOldestWhenFullButCountsThemAll() {
        RecentErrors r = new RecentErrors(3);
        for (int i = 1; i <= 5; i++) {
            r.add("namenode", Opcode.LOOKUP, new CreelException(ErrorCode.NOT_FOUND, "/x" + i + ": no such node"));
        }
        List<RecentErrors.Entry> kept = r.newestFirst();
        assertEquals(List.of("/x5: no such node", "/x4: no such node", "/x3: no such node"),
                kept.stream().map(RecentErrors.Entry::message).toList());
        assertEquals("NOT_FOUND", kept.get(0).code());
        assertEquals(5, r.total());
    }

    @Test
    void startsEmpty() {
        assertEquals(List.of(), new RecentErrors(2).newestFirst());
        assertEquals(0, new RecentErrors(2).total());
    }

    @Test
    void needsRoomForOne() {
        assertThrows(IllegalArgumentException.class, () -> new RecentErrors(0));
    }
}
