package io.creel.common.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StableHashTest {
    @Test
    void matchesPublishedFnv1aVectors() {
        // FNV-1a 64 reference values: the partition function must never change across releases.
        assertEquals(0xcbf29ce484222325L, StableHash.hash(""));
        assertEquals(0xaf63dc4c8601ec8cL, StableHash.hash("a"));
        assertEquals(0x85944171f73967e8L, StableHash.hash("foobar"));
    }

    @Test
    void partitionsAreInRangeAndSpread() {
        int[] counts = new int[4];
        for (int i = 0; i < 4000; i++) {
            int p = StableHash.partition("job-" + i, 4);
            assertTrue(p >= 0 && p < 4);
            counts[p]++;
        }
        for (int c : counts) {
            assertTrue(c > 800, "partitions should be roughly even: " + java.util.Arrays.toString(counts));
        }
    }
}
