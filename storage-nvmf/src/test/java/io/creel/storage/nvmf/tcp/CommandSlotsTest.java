package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.nvme.NvmeCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class CommandSlotsTest {
    private static final NvmeCommand FLUSH = NvmeCommand.of(0x00, 1, 0, 0, 0, 0, 0, 0);

    private static CommandSlot begin(CommandSlots cids, long deadline) {
        CommandSlot s = cids.take();
        s.begin(FLUSH, new CompletableFuture<>(), false, deadline);
        return s;
    }

    @Test
    void cidsAreTakenLowestFirstAndAFreedOneIsTakenNext() {
        CommandSlots cids = new CommandSlots(3);
        assertEquals(0, begin(cids, 0).cid);
        CommandSlot one = begin(cids, 0);
        assertEquals(1, one.cid);
        one.clear();
        cids.release(one);
        assertEquals(1, begin(cids, 0).cid, "the CID freed last is reused first");
        assertEquals(2, begin(cids, 0).cid);
        assertFalse(cids.hasFree(), "all " + cids.depth() + " CIDs are in flight");
    }

    @Test
    void onlyAnOutstandingCommandIsFoundByItsCid() {
        CommandSlots cids = new CommandSlots(2);
        CommandSlot s = begin(cids, 0);
        assertSame(s, cids.active(s.cid));
        assertNull(cids.active(1), "CID 1 has no command");
        assertNull(cids.active(7), "CID 7 is past the queue depth");
        s.clear();
        assertNull(cids.active(s.cid), "a finished command is no longer found");
    }

    @Test
    void theSweepFindsTheFirstCommandPastItsDeadline() {
        CommandSlots cids = new CommandSlots(3);
        begin(cids, 1_000);
        CommandSlot early = begin(cids, 500);
        assertNull(cids.firstExpired(500), "a deadline is passed only after it");
        assertSame(early, cids.firstExpired(501));
        assertTrue(cids.firstExpired(1_001).deadlineNanos <= 1_000);
    }

    @Test
    void closingVisitsEveryOutstandingCommandInCidOrder() {
        CommandSlots cids = new CommandSlots(4);
        begin(cids, 0);
        CommandSlot done = begin(cids, 0);
        begin(cids, 0);
        done.clear();
        cids.release(done);
        List<Integer> visited = new ArrayList<>();
        assertEquals(2, cids.forEachActive(s -> visited.add(s.cid)));
        assertEquals(List.of(0, 2), visited);
    }
}
