package io.creel.namenode.allocation;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.RegionGrantReply.Grant;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The allocator hands out only blocks of regions granted to it, asks for more, and gives idle ones back. */
class RegionAllocationTest {
    private final ManualClock clock = new ManualClock();
    private final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), 4096, 60_000, clock);
    private final BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, 100, clock);
    private final List<String> lowSignals = new ArrayList<>();

    {
        allocator.onLowBlocks((cls, size) -> lowSignals.add(cls));
    }

    private StorageServerInfo add(String cls, int port, long blocks) {
        return registry.register(server(cls, cls, "h", port, blocks, 4096, port));
    }

    @Test
    void withoutARegionTheAllocatorAsksForOneInsteadOfFailing() {
        StorageServerInfo s = add("dram", 1, 8);
        RegionShortage shortage = assertThrows(RegionShortage.class, () -> allocator.allocate("dram", ""));
        assertEquals("dram", shortage.storageClass());
        assertEquals(List.of(s), allocator.growCandidates("dram", 0));
        allocator.granted(s, 4, List.of(new Grant(1, 0)), false);
        AllocatedBlock b = allocator.allocate("dram", "");
        assertEquals(4, b.blockNumber(), "blocks come from the granted region only (blocks 4..7)");
    }

    @Test
    void aClassSpillsOnlyWhenItsServersHaveNoRegionLeft() {
        StorageServerInfo dram = add("dram", 1, 4);
        StorageServerInfo disk = add("disk", 2, 4);
        allocator.granted(dram, 4, List.of(new Grant(0, 0)), true);
        allocator.granted(disk, 4, List.of(new Grant(0, 0)), false);
        for (int i = 0; i < 4; i++) {
            assertEquals("dram", allocator.allocate("dram", "").server().storageClass());
        }
        assertEquals("disk", allocator.allocate("dram", "").server().storageClass(), "dram is full cluster-wide");
    }

    @Test
    void aClassWhoseBlocksAllWaitOutTheReuseDelaySpillsAtOnceAndAsksForMoreInTheBackground() {
        StorageServerInfo dram = add("dram", 1, 8);
        StorageServerInfo disk = add("disk", 2, 8);
        allocator.granted(dram, 4, List.of(new Grant(0, 0)), false); // region 1 may still be had, for all we know
        allocator.granted(disk, 4, List.of(new Grant(0, 0)), false);
        List<AllocatedBlock> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(allocator.allocate("dram", ""));
        }
        allocator.retire(all);
        lowSignals.clear();
        assertEquals(new BlockAllocator.Counts(0, 4, 4, 1), allocator.counts(dram), "all of DRAM's granted blocks pending");

        AllocatedBlock b = allocator.allocate("dram", "");
        assertEquals("disk", b.server().storageClass(), "nothing in DRAM is free now: this allocation spills");
        assertEquals(List.of("dram"), lowSignals, "DRAM's servers are asked for a region in the background");

        allocator.granted(dram, 4, List.of(new Grant(1, 0)), false);
        assertEquals("dram", allocator.allocate("dram", "").server().storageClass(), "DRAM again once it has blocks");
    }

    @Test
    void withNothingFreeAnywhereTheFirstClassThatMayGrowIsAskedAndThenOutOfSpaceSaysWhatIsPending() {
        StorageServerInfo dram = add("dram", 1, 4);
        allocator.granted(dram, 4, List.of(new Grant(0, 0)), true);
        List<AllocatedBlock> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(allocator.allocate("dram", ""));
        }
        allocator.retire(all.subList(0, 3));
        StorageServerInfo disk = add("disk", 2, 4);
        RegionShortage shortage = assertThrows(RegionShortage.class, () -> allocator.allocate("dram", ""));
        assertEquals("disk", shortage.storageClass(), "DRAM cannot grow; disk can");
        allocator.granted(disk, 4, List.of(), true);
        var e = Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("dram", ""), "dram, disk",
                "3 freed blocks are waiting out the reuse delay of 100 ms");
        assertTrue(!(e instanceof RegionShortage), e.toString());
    }

    @Test
    void aFullServerIsAskedAgainOnlyAfterAPause() {
        StorageServerInfo s = add("dram", 1, 8);
        allocator.granted(s, 4, List.of(), true);
        assertTrue(allocator.growCandidates("dram", 0).isEmpty());
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("disk", ""));
        clock.advance(BlockAllocator.FULL_RETRY_MILLIS);
        assertEquals(List.of(s), allocator.growCandidates("dram", 0));
    }

    @Test
    void runningLowSignalsAheadOfTheShortage() {
        StorageServerInfo s = add("dram", 1, 16);
        allocator.granted(s, 4, List.of(new Grant(0, 0)), false);
        allocator.allocate("dram", "");
        assertTrue(lowSignals.isEmpty());
        allocator.allocate("dram", "");
        allocator.allocate("dram", "");
        assertEquals(List.of("dram"), lowSignals.subList(0, 1), "fewer than half a region left");
    }

    @Test
    void grantedRegionsRaiseTheTagFloor() {
        StorageServerInfo s = add("dram", 1, 8);
        long far = Long.MAX_VALUE / 2;
        allocator.granted(s, 4, List.of(new Grant(0, far)), false);
        assertTrue(allocator.allocate("dram", "").tag() > far);
    }

    @Test
    void anEmptyRegionIsGivenBackAfterTheIdleTimeAndABusyOneNever() {
        StorageServerInfo s = add("dram", 1, 8);
        allocator.granted(s, 4, List.of(new Grant(0, 0), new Grant(1, 0)), false);
        AllocatedBlock kept = allocator.allocate("dram", "");
        AllocatedBlock freed = allocator.allocate("dram", "");
        allocator.retire(List.of(freed));
        clock.advance(99);
        assertTrue(allocator.takeIdleRegions(200).isEmpty(), "not idle long enough yet");
        clock.advance(200);
        List<BlockAllocator.RegionRef> idle = allocator.takeIdleRegions(200);
        assertEquals(List.of(1), idle.stream().map(BlockAllocator.RegionRef::region).toList());
        assertEquals(List.of(0), allocator.busyRegions(s));
        assertEquals(1, allocator.counts(s).regions());
        for (int i = 0; i < 3; i++) {
            allocator.allocate("dram", ""); // the rest of region 0, the retired block included (its delay is over)
        }
        assertThrows(RegionShortage.class, () -> allocator.allocate("dram", ""), "region 1 was given back");
        assertTrue(kept.blockNumber() < 4);
    }

    @Test
    void blocksRestoredAfterARestartStayUsedWhenTheirRegionIsGrantedAgain() {
        StorageServerInfo s = add("dram", 1, 8);
        allocator.restoreUsed(s, 5);
        allocator.restoreUsed(s, 6);
        assertTrue(allocator.restoredRegions(s).isEmpty(), "the region size is not known yet");
        allocator.granted(s, 4, List.of(), false); // a sync reply with nothing confirmed tells the size
        assertEquals(List.of(1), allocator.restoredRegions(s));
        allocator.granted(s, 4, List.of(new Grant(1, 0)), false);
        assertEquals(2, allocator.counts(s).used());
        List<Long> handedOut = new ArrayList<>();
        handedOut.add(allocator.allocate("dram", "").blockNumber());
        handedOut.add(allocator.allocate("dram", "").blockNumber());
        assertEquals(List.of(4L, 7L), handedOut, "blocks 5 and 6 hold data and are never handed out");
        assertThrows(RegionShortage.class, () -> allocator.allocate("dram", ""));
    }
}
