package io.creel.ops.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ClusterViewTest {
    static ServerStatus server(String host, String cls, String state, long blocks, long used, long pending) {
        return new ServerStatus(new StorageServerInfo(1, cls, cls, host, 7000, "h", blocks, 1 << 20, 1L,
                new TreeMap<>()), state, used, Math.max(0, blocks - used - pending), pending, 100);
    }

    @Test
    void bytesAreBlocksTimesBlockSizeAndFreeIsWhatNeitherUsedNorPending() {
        ClusterView v = ClusterView.of(new StatusReply(9, List.of("dram"), List.of(server("a", "dram", "live", 10, 3, 2))));
        ClusterView.Server s = v.servers().get(0);
        assertEquals(10L << 20, s.capacityBytes());
        assertEquals(3L << 20, s.usedBytes());
        assertEquals(2L << 20, s.pendingBytes());
        assertEquals(5L << 20, s.freeBytes());
        assertEquals(9, v.nodes());
    }

    @Test
    void deadAndDecommissionedServersDoNotCountTowardTheirClassButDrainingOnesDo() {
        ClusterView v = ClusterView.of(new StatusReply(1, List.of("dram", "disk"), List.of(
                server("a", "dram", "live", 10, 1, 0), server("b", "dram", "dead", 10, 4, 0),
                server("c", "dram", "draining", 10, 2, 0), server("d", "disk", "decommissioned", 50, 0, 0))));
        ClusterView.ClassTotal dram = v.classTotals().get(0);
        assertEquals("dram", dram.storageClass());
        assertEquals(2, dram.servers());
        assertEquals(20L << 20, dram.capacityBytes());
        assertEquals(3, dram.usedBlocks());
        ClusterView.ClassTotal disk = v.classTotals().get(1);
        assertEquals(0, disk.servers());
        assertEquals(0, disk.capacityBytes());
        assertEquals(Map.of("live", 1, "draining", 1, "dead", 1, "decommissioned", 1), v.serversByState());
    }

    @Test
    void aFullClassSpillsOnlyWhenALowerClassHoldsBlocks() {
        ClusterView full = ClusterView.of(new StatusReply(1, List.of("dram", "disk"), List.of(
                server("a", "dram", "live", 4, 4, 0), server("d", "disk", "live", 50, 3, 0))));
        assertEquals(List.of("dram"), full.spilling());
        ClusterView fullButNothingBelow = ClusterView.of(new StatusReply(1, List.of("dram", "disk"), List.of(
                server("a", "dram", "live", 4, 4, 0), server("d", "disk", "live", 50, 0, 0))));
        assertEquals(List.of(), fullButNothingBelow.spilling());
        ClusterView room = ClusterView.of(new StatusReply(1, List.of("dram", "disk"), List.of(
                server("a", "dram", "live", 4, 3, 0), server("d", "disk", "live", 50, 3, 0))));
        assertEquals(List.of(), room.spilling());
    }

    @Test
    void anEmptyClusterHasEveryClassAtZero() {
        ClusterView v = ClusterView.of(new StatusReply(1, List.of("dram", "disk"), List.of()));
        assertEquals(2, v.classTotals().size());
        assertEquals(0, v.classTotals().get(0).capacityBytes());
        assertEquals(0, v.serversByState().get("live"));
    }
}
