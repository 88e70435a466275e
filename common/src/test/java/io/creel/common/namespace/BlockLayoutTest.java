package io.creel.common.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BlockLayoutTest {
    private static final long MIB = 1 << 20;

    @Test
    void uniformLayoutIsTheDivisionByTheBlockSize() {
        BlockLayout l = BlockLayout.uniform(MIB);
        for (long pos : new long[] {0, 1, MIB - 1, MIB, MIB + 1, 5 * MIB + 17, 1L << 40}) {
            assertEquals(pos / MIB, l.blockOf(pos), "block of " + pos);
            assertEquals(pos % MIB, l.offsetInBlock(pos), "offset of " + pos);
            assertEquals(MIB - pos % MIB, l.remainingInBlock(pos), "remaining at " + pos);
        }
        assertEquals(0, l.blocksFor(0));
        assertEquals(1, l.blocksFor(1));
        assertEquals(1, l.blocksFor(MIB));
        assertEquals(2, l.blocksFor(MIB + 1));
        assertEquals(3 * MIB, l.capacity(3));
        assertEquals(0, l.capacity(0));
        assertEquals(2 * MIB, l.start(2));
        assertEquals(MIB, l.size(0));
    }

    @Test
    void aShortFirstBlockShiftsEveryLaterBlock() {
        long first = 64 << 10;
        BlockLayout l = new BlockLayout(first, MIB);
        assertEquals(0, l.blockOf(first - 1));
        assertEquals(first - 1, l.offsetInBlock(first - 1));
        assertEquals(1, l.remainingInBlock(first - 1));
        assertEquals(1, l.blockOf(first));
        assertEquals(0, l.offsetInBlock(first));
        assertEquals(MIB, l.remainingInBlock(first));
        assertEquals(1, l.blockOf(first + MIB - 1));
        assertEquals(2, l.blockOf(first + MIB));
        assertEquals(first + MIB, l.start(2));
        assertEquals(first, l.size(0));
        assertEquals(MIB, l.size(1));
        assertEquals(1, l.blocksFor(first));
        assertEquals(2, l.blocksFor(first + 1));
        assertEquals(first + 2 * MIB, l.capacity(3));
    }

    @Test
    void everyPositionLiesInsideTheBlockItMapsTo() {
        BlockLayout l = new BlockLayout(16 << 10, 256 << 10);
        for (long pos = 0; pos < 3 << 20; pos += 4093) {
            long b = l.blockOf(pos);
            long start = l.start(b);
            assertEquals(pos - start, l.offsetInBlock(pos));
            assertEquals(true, pos >= start && pos < start + l.size(b), "position " + pos + " in block " + b);
            assertEquals(b + 1, l.blocksFor(pos + 1));
            assertEquals(true, l.capacity(l.blocksFor(pos + 1)) > pos);
        }
    }

    @Test
    void badShapesAndNegativeArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new BlockLayout(0, MIB));
        assertThrows(IllegalArgumentException.class, () -> new BlockLayout(MIB + 1, MIB));
        assertThrows(IllegalArgumentException.class, () -> BlockLayout.uniform(0));
        BlockLayout l = BlockLayout.uniform(MIB);
        assertThrows(IllegalArgumentException.class, () -> l.blockOf(-1));
        assertThrows(IllegalArgumentException.class, () -> l.start(-1));
        assertThrows(IllegalArgumentException.class, () -> l.blocksFor(-1));
        assertThrows(IllegalArgumentException.class, () -> l.capacity(-2));
    }
}
