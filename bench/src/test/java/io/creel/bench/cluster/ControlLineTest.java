package io.creel.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ControlLineTest {
    @Test
    void readyCarriesTheAddressAndPid() {
        String line = ControlLine.ready("creel://127.0.0.1:4567", 99);
        assertEquals("READY creel://127.0.0.1:4567 99", line);
        assertEquals(Optional.of(new ControlLine.Ready("creel://127.0.0.1:4567", 99)), ControlLine.parseReady(line));
        assertTrue(ControlLine.parseReady("MEMORY 1 2").isEmpty());
    }

    @Test
    void aMalformedReadyLineIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> ControlLine.parseReady("READY creel://x:1"));
        assertThrows(IllegalArgumentException.class, () -> ControlLine.parseReady("READY creel://x:1 pid"));
        assertThrows(IllegalArgumentException.class, () -> ControlLine.ready("creel://a b:1", 1));
    }

    @Test
    void memoryRoundTrips() {
        MemoryUse m = new MemoryUse(123_456_789L, 4096);
        assertEquals(m, ControlLine.parseMemory(ControlLine.memory(m)));
        assertEquals(123_460_885L, m.totalBytes());
    }

    @Test
    void anythingButAWellFormedMemoryLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ControlLine.parseMemory("ERROR out of memory"));
        assertThrows(IllegalArgumentException.class, () -> ControlLine.parseMemory("MEMORY 12"));
        assertThrows(IllegalArgumentException.class, () -> ControlLine.parseMemory("MEMORY 12 x"));
        assertThrows(IllegalArgumentException.class, () -> ControlLine.parseMemory("MEMORY -1 0"));
    }

    @Test
    void errorsStayOnOneLine() {
        String line = ControlLine.error("first\nsecond\r\nthird");
        assertEquals("ERROR first second third", line);
        assertEquals(Optional.of("first second third"), ControlLine.parseError(line));
        assertTrue(ControlLine.parseError("READY x 1").isEmpty());
    }
}
