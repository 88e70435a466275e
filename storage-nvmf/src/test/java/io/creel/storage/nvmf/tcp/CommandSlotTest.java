package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.creel.common.inflight.InFlightSlots;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The commands in flight on a queue pair as the queue wires them: common's {@link InFlightSlots}
 * (whose own test covers the order CIDs are taken in, lookups, the sweep and taking all out) holding
 * one {@link CommandSlot} per CID, made once.
 */
class CommandSlotTest {
    private static final NvmeCommand FLUSH = NvmeCommand.of(0x00, 1, 0, 0, 0, 0, 0, 0);
    private static final NvmeCommand READ = NvmeCommand.of(0x02, 1, 0, 0, 0, 0, 0, 0);

    private static CommandSlot begin(InFlightSlots<CommandSlot> cids, IntFunction<CommandSlot> slotOfCid,
            NvmeCommand command, long deadline) {
        CommandSlot s = cids.get(cids.add(slotOfCid));
        s.begin(command, new CompletableFuture<>(), false, deadline);
        return s;
    }

    @Test
    void aCidGetsItsOwnSlotBackForEveryCommandAndNoMoreCidsThanTheQueueDepth() {
        InFlightSlots<CommandSlot> cids = new InFlightSlots<>(2);
        IntFunction<CommandSlot> slotOfCid = CommandSlot.madeOncePerCid(2);
        CommandSlot first = begin(cids, slotOfCid, FLUSH, 0);
        CommandSlot second = begin(cids, slotOfCid, FLUSH, 0);
        assertEquals(List.of(0, 1), List.of(first.cid, second.cid), "a slot's CID is the one it is held under");
        assertFalse(cids.hasFree(), "a queue of depth 2 has two CIDs");
        assertEquals(-1, cids.add(slotOfCid));
        assertSame(first, cids.remove(first.cid));
        first.clear();
        assertSame(first, begin(cids, slotOfCid, READ, 0), "the freed CID's slot is reused, not made again");
        assertSame(READ, first.command);
    }

    @Test
    void beginForgetsWhatThePreviousCommandOnTheCidMoved() {
        CommandSlot s = CommandSlot.madeOncePerCid(1).apply(0);
        s.begin(READ, new CompletableFuture<>(), true, 7);
        s.transferred = 4096;
        s.solicited = 512;
        s.inCapsule = true;
        s.dataDigestError = true;
        s.clear();
        assertNull(s.command, "a finished command is not kept alive by its slot");
        assertNull(s.future);
        CompletableFuture<Object> f = new CompletableFuture<>();
        s.begin(FLUSH, f, false, 9);
        assertEquals(List.of(0L, 0L, false, false, false, 9L),
                List.of(s.transferred, s.solicited, s.inCapsule, s.dataDigestError, s.wantsResult, s.deadlineNanos()));
        assertSame(f, s.future);
    }

    @Test
    void theSweepSeesTheDeadlineACommandBeganWith() {
        InFlightSlots<CommandSlot> cids = new InFlightSlots<>(3);
        IntFunction<CommandSlot> slotOfCid = CommandSlot.madeOncePerCid(3);
        begin(cids, slotOfCid, FLUSH, 1_000);
        CommandSlot early = begin(cids, slotOfCid, FLUSH, 500);
        assertNull(cids.firstExpired(500), "a deadline is passed only after it");
        assertSame(early, cids.firstExpired(501));
        cids.remove(early.cid);
        assertNull(cids.firstExpired(501), "a completed command is not swept");
    }
}
