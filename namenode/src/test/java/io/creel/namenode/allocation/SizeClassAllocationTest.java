package io.creel.namenode.allocation;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.RegionGrantReply.Grant;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * First blocks from size classes: storage servers whose blocks are smaller than the cluster's. The
 * smallest class that holds the hint, a region asked for before falling back, whole blocks when no
 * class can give one; whole blocks never come from a size class.
 */
class SizeClassAllocationTest {
    private static final int BLOCK = 1 << 20;
    private final ManualClock clock = new ManualClock();
    private final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), BLOCK, 60_000, clock);
    private final BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, 100, clock);
    private final List<String> lowSignals = new ArrayList<>();

    {
        allocator.onLowBlocks((cls, size) -> lowSignals.add(cls + "/" + size));
        allocator.useFirstBlockSize(64 << 10);
    }

    private StorageServerInfo add(String host, int port, int blockSize, long blocks) {
        StorageServerInfo s = registry.register(server("dram", "dram", host, port, blocks, blockSize, port));
        allocator.granted(s, (int) blocks, List.of(new Grant(0, 0)), false);
        return s;
    }

    @Test
    void theSmallestClassThatHoldsTheHintGivesTheFirstBlock() {
        add("h", 1, BLOCK, 4);
        add("h", 2, 16 << 10, 8);
        add("h", 3, 64 << 10, 8);
        assertEquals(List.of(16 << 10, 64 << 10), registry.sizeClasses("dram"));
        assertEquals(16 << 10, first(10_000).server().blockSize());
        assertEquals(16 << 10, first(16 << 10).server().blockSize());
        assertEquals(64 << 10, first((16 << 10) + 1).server().blockSize());
        assertEquals(64 << 10, first(0).server().blockSize(), "no hint: creel.namenode.first.block.size");
        assertEquals(BLOCK, first(65 << 10).server().blockSize(), "larger than every class: a whole block");
        assertEquals(BLOCK, allocator.allocate("dram", "").server().blockSize(), "later blocks are whole");
    }

    @Test
    void aFullClassGivesWayToTheNextAndThenToWholeBlocks() {
        add("h", 1, BLOCK, 4);
        StorageServerInfo small = add("h", 2, 16 << 10, 1);
        add("h", 3, 64 << 10, 1);
        allocator.granted(small, 1, List.of(), true); // nothing more to grant
        assertEquals(16 << 10, first(1000).server().blockSize());
        assertEquals(64 << 10, first(1000).server().blockSize(), "16 KiB class used up");
        assertEquals(BLOCK, first(1000).server().blockSize(), "every class used up");
    }

    @Test
    void aClassThatMayStillGrantARegionIsAskedBeforeFallingBack() {
        add("h", 1, BLOCK, 4);
        StorageServerInfo small = registry.register(server("dram", "dram", "h", 2, 8, 16 << 10, 2));
        RegionShortage shortage = assertThrows(RegionShortage.class, () -> first(1000));
        assertEquals("dram", shortage.storageClass());
        assertEquals(16 << 10, shortage.blockSize());
        assertEquals(List.of(small), allocator.growCandidates("dram", 16 << 10));
        assertEquals(List.of(), allocator.growCandidates("dram", 0).stream().filter(s -> s.equals(small)).toList(),
                "whole-block shortages do not ask size-class servers");
        allocator.granted(small, 8, List.of(new Grant(0, 0)), false);
        assertEquals(16 << 10, first(1000).server().blockSize());
    }

    @Test
    void turnedOffEveryBlockIsWhole() {
        add("h", 1, BLOCK, 4);
        add("h", 2, 16 << 10, 8);
        allocator.useFirstBlockSize(0);
        assertEquals(BLOCK, first(1000).server().blockSize());
        assertThrows(CreelException.class, () -> allocator.useFirstBlockSize(-1));
    }

    @Test
    void copiesOfASmallBlockAreOfItsSizeOnOtherHostsOrTheBlockIsWhole() {
        add("a", 1, BLOCK, 4);
        add("b", 2, BLOCK, 4);
        add("a", 3, 64 << 10, 4);
        AllocatedBlock lonely = allocator.allocateFirst("dram", "", Set.of(), 2, 1000);
        assertEquals(BLOCK, lonely.server().blockSize(), "no second host with 64 KiB blocks: whole copies");
        assertEquals(2, lonely.copyCount());
        add("b", 4, 64 << 10, 4);
        AllocatedBlock b = allocator.allocateFirst("dram", "", Set.of(), 2, 1000);
        assertEquals(2, b.copyCount());
        for (BlockCopy c : b.copies()) {
            assertEquals(64 << 10, c.server().blockSize());
        }
        assertTrue(!b.copies().get(0).server().host().equals(b.copies().get(1).server().host()));
        assertNull(allocator.allocateSized("dram", "", Set.of(3, 4), 1, 64 << 10),
                "every server of the size avoided and none may grant: no block");
    }

    @Test
    void aServerWhoseBlocksDoNotDivideTheClustersIsRefused() {
        CreelException larger = assertThrows(CreelException.class,
                () -> registry.register(server("dram", "dram", "h", 9, 4, 2 * BLOCK, 9)));
        assertEquals(ErrorCode.CONFIGURATION, larger.code());
        CreelException odd = assertThrows(CreelException.class,
                () -> registry.register(server("dram", "dram", "h", 10, 4, 3 * 4096, 10)));
        assertEquals(ErrorCode.CONFIGURATION, odd.code());
    }

    private AllocatedBlock first(long hint) {
        return allocator.allocateFirst("dram", "", Set.of(), 1, hint);
    }
}
