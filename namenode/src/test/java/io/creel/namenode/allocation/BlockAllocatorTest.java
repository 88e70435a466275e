package io.creel.namenode.allocation;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BlockAllocatorTest {
    private final ManualClock clock = new ManualClock();
    private final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), 4096, 60_000, clock);
    private final BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, 1_000, clock);

    private int add(String cls, String host, int port, long blocks) {
        return io.creel.namenode.testing.Servers.grantAll(allocator,
                registry.register(server(cls, cls, host, port, blocks, 4096, port))).serverId();
    }

    @Test
    void allocatesFromTheAskedClass() {
        add("dram", "h1", 1, 4);
        int disk = add("disk", "h1", 2, 4);
        assertEquals(disk, allocator.allocate("disk", "").server().serverId());
        assertEquals("dram", allocator.allocate("dram", "").server().storageClass());
    }

    @Test
    void spillsDownTheOrderWhenTheClassIsFullClusterWide() {
        add("dram", "h1", 1, 1);
        add("dram", "h2", 2, 1);
        add("disk", "h1", 3, 4);
        assertEquals("dram", allocator.allocate("dram", "").server().storageClass());
        assertEquals("dram", allocator.allocate("dram", "").server().storageClass());
        assertEquals("disk", allocator.allocate("dram", "").server().storageClass(), "DRAM is full: spill to disk");
    }

    @Test
    void neverSpillsUpTheOrder() {
        add("dram", "h1", 1, 4);
        add("disk", "h1", 2, 1);
        allocator.allocate("disk", "");
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("disk", ""), "disk");
    }

    @Test
    void rightAfterARestartNoBlockYetIsUnavailableNotOutOfSpace() {
        registry.restore(server("dram", "dram", "h1", 1, 10, 4096, 7));
        registry.restore(server("disk", "disk", "h1", 2, 10, 4096, 8));
        Expect.error(ErrorCode.UNAVAILABLE, () -> allocator.allocate("dram", ""),
                "2 storage servers known from this namenode's log have not registered again");
        Expect.error(ErrorCode.UNAVAILABLE, () -> allocator.allocate("disk", ""), "1 storage server known");
        io.creel.namenode.testing.Servers.grantAll(allocator, registry.register(server("dram", "dram", "h1", 1, 10,
                4096, 7)));
        assertEquals("dram", allocator.allocate("dram", "").server().storageClass(), "back: blocks come from it");
    }

    @Test
    void aRestoredServerThatCameBackWithANewMediumOrWasReplacedIsNotWaitedFor() {
        registry.restore(server("disk", "disk", "h1", 2, 10, 4096, 8));
        add("disk", "h1", 2, 1); // the same address with a new token: a fresh medium, the old identity is gone
        allocator.allocate("disk", "");
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("disk", ""), "disk");
    }

    @Test
    void aBlockRestoredOnAServerThatHasNotComeBackIsFreedWithoutBeingHandedOut() {
        // After a namenode restart a node on a server that never registers again can still be removed.
        io.creel.common.protocol.StorageServerInfo gone = registry.restore(server("dram", "dram", "h1", 1, 10, 4096, 7));
        allocator.restoreUsed(gone, 3);
        assertEquals(1, allocator.counts(gone).used());
        allocator.retire(List.of(new AllocatedBlock(gone, 3, 1)));
        clock.advance(2_000);
        allocator.releaseDue();
        BlockAllocator.Counts after = allocator.counts(gone);
        assertEquals(0, after.used() + after.pending(), "the block is neither used nor retiring: " + after);
        assertEquals(0, after.regions(), "and no region of it was taken by the release: " + after);
        Expect.error(ErrorCode.UNAVAILABLE, () -> allocator.allocate("dram", ""), "not registered again");
    }

    @Test
    void regionsARestartedServerNoLongerConfirmsAreDroppedUnlessTheirBlocksAreInUse() {
        io.creel.common.protocol.StorageServerInfo s = registry.register(server("dram", "dram", "h1", 1, 8, 4096, 1));
        allocator.granted(s, 4, List.of(new io.creel.common.protocol.RegionGrantReply.Grant(0, 0),
                new io.creel.common.protocol.RegionGrantReply.Grant(1, 0)), false);
        AllocatedBlock used = allocator.allocate("dram", "");
        int busy = (int) (used.blockNumber() / 4);
        assertEquals(List.of(0, 1), allocator.grantedRegions(s));
        assertEquals(List.of(busy), allocator.unconfirmed(s, List.of(0, 1), List.of()),
                "the region with a block in use is reported, not dropped");
        assertEquals(List.of(busy), allocator.grantedRegions(s), "the idle one is another namenode's now");
    }

    @Test
    void roundRobinsOverTheServersOfAClass() {
        int a = add("dram", "h1", 1, 10);
        int b = add("dram", "h2", 2, 10);
        int c = add("dram", "h3", 3, 10);
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            chosen.add(allocator.allocate("dram", "").server().serverId());
        }
        assertEquals(List.of(a, b, c, a, b, c), chosen);
    }

    @Test
    void prefersServersOfTheRequestedLocationByHostOrHostId() {
        add("dram", "h1", 1, 10);
        int h2 = add("dram", "h2", 2, 10);
        for (int i = 0; i < 3; i++) {
            assertEquals(h2, allocator.allocate("dram", "h2").server().serverId());
            assertEquals(h2, allocator.allocate("dram", "machine-h2").server().serverId());
        }
    }

    @Test
    void aLocationWithoutFreeBlocksFallsBackToOtherServersOfTheClass() {
        int h1 = add("dram", "h1", 1, 10);
        add("dram", "h2", 2, 1);
        allocator.allocate("dram", "h2");
        assertEquals(h1, allocator.allocate("dram", "h2").server().serverId());
    }

    @Test
    void deadServersAreNotAllocatedFrom() {
        int a = add("dram", "h1", 1, 10);
        int b = add("dram", "h2", 2, 10);
        clock.advance(60_001);
        registry.heartbeat(b, 2);
        for (int i = 0; i < 3; i++) {
            assertEquals(b, allocator.allocate("dram", "").server().serverId());
        }
        assertTrue(a != b);
    }

    @Test
    void outOfSpaceNamesTheClassesAndLeavesAccountingUntouched() {
        add("dram", "h1", 1, 2);
        allocator.allocate("dram", "");
        allocator.allocate("dram", "");
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("dram", ""), "dram, disk");
        BlockAllocator.Counts c = allocator.counts(registry.liveServers("dram").get(0));
        assertEquals(new BlockAllocator.Counts(2, 0, 0, 1), c);
    }

    @Test
    void retiredBlocksAreNotReusedBeforeTheDelayAndThenInFifoOrder() {
        add("dram", "h1", 1, 3);
        AllocatedBlock b0 = allocator.allocate("dram", "");
        AllocatedBlock b1 = allocator.allocate("dram", "");
        AllocatedBlock b2 = allocator.allocate("dram", "");
        allocator.retire(List.of(b1));
        clock.advance(10);
        allocator.retire(List.of(b0));
        assertEquals(new BlockAllocator.Counts(1, 0, 2, 1), allocator.counts(b2.server()));
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("dram", ""));
        clock.advance(990);
        AllocatedBlock again = allocator.allocate("dram", "");
        assertEquals(b1.blockNumber(), again.blockNumber(), "first retired, first reused");
        // b0's delay has not ended yet
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("dram", ""));
        clock.advance(10);
        assertEquals(b0.blockNumber(), allocator.allocate("dram", "").blockNumber());
        assertTrue(again.tag() > b1.tag(), "a reused block gets a newer tag");
    }

    @Test
    void tagsStrictlyIncreaseAndStartAboveTheClockShifted() {
        add("dram", "h1", 1, 100);
        long last = (clock.getAsLong() << 20);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            long tag = allocator.allocate("dram", "").tag();
            assertTrue(tag > last);
            assertTrue(seen.add(tag));
            last = tag;
        }
    }

    @Test
    void unknownClassInARequestIsRejectedNamingTheClasses() {
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> {
            allocator.checkClass("nvme", "/x");
            return null;
        }, "nvme", "dram, disk");
    }
}
