package io.creel.common.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class InFlightSlotsTest {
    private record Op(String name, long deadlineNanos) implements InFlightTable.Deadlined {
    }

    @Test
    void slotsAreTakenLowestFirstThenTheOneFreedLast() {
        InFlightSlots<Op> s = new InFlightSlots<>(3);
        assertEquals(0, s.add(new Op("a", 0)));
        assertEquals(1, s.add(new Op("b", 0)));
        assertEquals("b", s.remove(1).name());
        assertEquals(1, s.add(new Op("c", 0)), "the slot freed last is taken next");
        assertEquals(2, s.add(new Op("d", 0)));
        assertFalse(s.hasFree());
        assertEquals(-1, s.add(new Op("e", 0)), "a full table takes nothing more");
        assertEquals(3, s.size());
    }

    @Test
    void aValueTiedToItsSlotIsMadeForTheSlotItGets() {
        InFlightSlots<Op> s = new InFlightSlots<>(2);
        s.add(new Op("first", 0));
        int slot = s.add(i -> new Op("made for slot " + i, 0));
        assertEquals("made for slot 1", s.get(slot).name());
    }

    @Test
    void removeTakesAnOperationOutOnceAndIgnoresFreeOrOutOfRangeSlots() {
        InFlightSlots<Op> s = new InFlightSlots<>(2);
        Op a = new Op("a", 0);
        int slot = s.add(a);
        assertSame(a, s.get(slot), "looking leaves it in place");
        assertSame(a, s.remove(slot));
        assertNull(s.remove(slot), "a second completion for the slot finds nothing");
        assertNull(s.remove(7));
        assertNull(s.remove(-1));
        assertEquals(0, s.size());
    }

    @Test
    void findsTheFirstOperationPastItsDeadline() {
        InFlightSlots<Op> s = new InFlightSlots<>(3);
        s.add(new Op("later", 100));
        Op early = new Op("early", 50);
        s.add(early);
        assertNull(s.firstExpired(50), "a deadline equal to now has not passed");
        assertSame(early, s.firstExpired(51));
        assertEquals("later", s.firstExpired(101).name(), "the first by slot");
    }

    @Test
    void removeAllEmptiesEverySlotInSlotOrder() {
        InFlightSlots<Op> s = new InFlightSlots<>(4);
        s.add(new Op("a", 0));
        int b = s.add(new Op("b", 0));
        s.add(new Op("c", 0));
        s.remove(b);
        assertEquals(List.of("a", "c"), s.removeAll().stream().map(Op::name).toList());
        assertEquals(0, s.size());
        assertEquals(4, s.capacity());
        assertTrue(s.hasFree());
    }

    @Test
    void aTableHasAtLeastOneSlot() {
        assertThrows(IllegalArgumentException.class, () -> new InFlightSlots<Op>(0));
    }
}
