package io.creel.storage.rdma.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.creel.storage.rdma.RdmaOperation;
import io.creel.storage.rdma.RemoteRegion;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkRequestTableTest {
    private static PendingOperation op(long deadline) {
        return new PendingOperation(RdmaOperation.READ, null, 0, new RemoteRegion(0x1000, 64, 7), 0, 8, deadline);
    }

    @Test
    void holdsAtMostItsDepthAndHandsOutDistinctIds() {
        WorkRequestTable t = new WorkRequestTable(9, 4);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            long id = t.add(op(0));
            assertEquals(9, WorkRequestTable.connectionIdOf(id));
            ids.add(id);
        }
        assertEquals(4, ids.size());
        assertEquals(4, t.size());
        assertEquals(-1, t.add(op(0)), "a full table takes nothing more");
    }

    @Test
    void removeReturnsTheOperationOnceAndFreesItsSlot() {
        WorkRequestTable t = new WorkRequestTable(1, 1);
        PendingOperation a = op(0);
        long id = t.add(a);
        assertSame(a, t.remove(id));
        assertNull(t.remove(id), "a second completion of the same id is ignored");
        assertEquals(0, t.size());
        long again = t.add(op(0));
        assertNotEquals(id, again, "a reused slot gets a new generation");
    }

    @Test
    void aStaleIdOfAReusedSlotMatchesNothing() {
        WorkRequestTable t = new WorkRequestTable(1, 1);
        long old = t.add(op(0));
        t.remove(old);
        PendingOperation current = op(0);
        long now = t.add(current);
        assertNull(t.remove(old), "the completion of the slot's earlier use must not complete the current one");
        assertSame(current, t.remove(now));
    }

    @Test
    void idsOfAnotherConnectionOrOutOfRangeSlotsMatchNothing() {
        WorkRequestTable t = new WorkRequestTable(1, 2);
        long id = t.add(op(0));
        long otherConnection = (2L << 32) | (id & 0xFFFF_FFFFL);
        assertNull(t.remove(otherConnection));
        assertNull(t.remove((1L << 32) | (5L << 16) | 1));
        assertEquals(1, t.size());
    }

    @Test
    void removeAllEmptiesTheTable() {
        WorkRequestTable t = new WorkRequestTable(3, 3);
        PendingOperation a = op(0);
        PendingOperation b = op(0);
        t.add(a);
        t.add(b);
        List<PendingOperation> all = t.removeAll();
        assertEquals(Set.of(a, b), new HashSet<>(all));
        assertEquals(0, t.size());
        assertEquals(3, t.capacity());
    }

    @Test
    void findsAnOperationPastItsDeadline() {
        WorkRequestTable t = new WorkRequestTable(3, 3);
        t.add(op(100));
        PendingOperation late = op(50);
        t.add(late);
        assertNull(t.firstExpired(50), "a deadline equal to now has not passed");
        assertSame(late, t.firstExpired(51));
    }

    @Test
    void depthMustFitTheSlotBits() {
        assertThrows(IllegalArgumentException.class, () -> new WorkRequestTable(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new WorkRequestTable(1, 65537));
    }
}
