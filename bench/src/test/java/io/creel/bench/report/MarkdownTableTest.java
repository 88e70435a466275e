package io.creel.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MarkdownTableTest {
    @Test
    void columnsArePaddedAndNumberColumnsAlignRight() {
        MarkdownTable t = new MarkdownTable(new boolean[] {false, true}, "name", "ops/s");
        t.row("lookup", "1,234").row("redis GET", "99");
        assertEquals("""
                | name      | ops/s |
                | --------- | ----: |
                | lookup    | 1,234 |
                | redis GET |    99 |
                """, t.render());
    }

    @Test
    void aCellThatWouldBreakTheTableIsRefused() {
        MarkdownTable t = new MarkdownTable(new boolean[] {false}, "a");
        assertThrows(IllegalArgumentException.class, () -> t.row("x|y"));
        assertThrows(IllegalArgumentException.class, () -> t.row("x\ny"));
        assertThrows(IllegalArgumentException.class, () -> t.row("x", "y"));
        assertThrows(IllegalArgumentException.class, () -> new MarkdownTable(new boolean[] {false}, "a", "b"));
    }
}
