package io.creel.namenode.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The repair's copies keep to their rate, and a long pause banks no more than a second of credit. */
class PacerTest {
    private final AtomicLong now = new AtomicLong(5_000_000_000L);
    private final Pacer pacer = new Pacer(1000, now::get); // 1000 bytes per second

    @Test
    void bytesBeyondTheRateWait() {
        assertEquals(0, pacer.book(1000), "the first bytes go at once");
        assertEquals(1_000_000_000L, pacer.book(1000), "the next thousand wait until the first are paid for");
        now.addAndGet(2_000_000_000L);
        assertEquals(0, pacer.book(500), "paid for once the time passed");
    }

    @Test
    void aLongPauseBanksOneSecondAtMost() {
        now.addAndGet(60_000_000_000L);
        assertEquals(0, pacer.book(1000));
        assertEquals(0, pacer.book(1000), "one banked second");
        assertEquals(1_000_000_000L, pacer.book(1000), "not a minute's worth of bytes at once");
    }

    @Test
    void aRateMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new Pacer(0, now::get));
    }
}
