package io.creel.storage.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RemoteRegionTest {
    private final RemoteRegion region = new RemoteRegion(0x1000, 4096, 0x42);

    @Test
    void containsRangesInsideTheRegionIncludingBothEnds() {
        assertTrue(region.contains(0, 4096));
        assertTrue(region.contains(4095, 1));
        assertTrue(region.contains(4096, 0));
        assertTrue(region.contains(100, 0));
    }

    @Test
    void rejectsRangesThatStartOrEndOutside() {
        assertFalse(region.contains(-1, 1));
        assertFalse(region.contains(0, 4097));
        assertFalse(region.contains(4096, 1));
        assertFalse(region.contains(1, -1));
        assertFalse(region.contains(Long.MAX_VALUE, Long.MAX_VALUE), "overflowing sums must not wrap into range");
    }

    @Test
    void refusesEmptyAndWrappingRegions() {
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> new RemoteRegion(0, 0, 1));
        assertTrue(empty.getMessage().contains("positive length"), empty.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new RemoteRegion(-16, 32, 1),
                "addresses are unsigned: the region would wrap past 2^64");
        assertThrows(IllegalArgumentException.class, () -> new RemoteRegion(-16, 16, 1),
                "the end must be representable");
        assertEquals(-17, new RemoteRegion(-17, 16, 1).address());
    }

    @Test
    void printsAddressLengthAndKeyInHex() {
        assertEquals("RemoteRegion[0x1000+4096, rkey 0x42]", region.toString());
    }
}
