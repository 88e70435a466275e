package io.creel.bench.user;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TransferResultTest {
    @Test
    void theResultLineRoundTripsAmongOtherOutput() {
        TransferResult r = new TransferResult(1L << 30, 512_000_000L, 90_000_000L);
        assertEquals("RESULT bytes=1073741824 nanos=512000000 setupNanos=90000000", r.format());
        assertEquals(r, TransferResult.parse("SLF4J: no providers\n" + r.format() + "\n"));
    }

    @Test
    void outputWithoutAWellFormedResultIsAnErrorQuotingIt() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> TransferResult.parse("fresh client: lookup /x: not found"));
        assertTrue(none.getMessage().contains("not found"), none.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransferResult.parse("RESULT bytes=1 nanos=2"));
        assertThrows(IllegalArgumentException.class, () -> TransferResult.parse("RESULT bytes=x nanos=2 setupNanos=1"));
        assertThrows(IllegalArgumentException.class, () -> TransferResult.parse("RESULT bytes=1 nanos=0 setupNanos=1"));
        assertThrows(IllegalArgumentException.class,
                () -> TransferResult.parse("RESULT bytes=1 nanos=2 setupNanos=1 extra=4"));
    }
}
