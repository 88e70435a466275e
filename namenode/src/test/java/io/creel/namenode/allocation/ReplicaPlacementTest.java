package io.creel.namenode.allocation;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockCopy;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where the copies of a replicated block go, and what happens when they cannot go anywhere. */
class ReplicaPlacementTest {
    private final ManualClock clock = new ManualClock();
    private final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), 4096, 60_000, clock);
    private final BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, 1_000, clock);

    private StorageServerInfo add(String cls, String host, int port, long blocks, String rack) {
        StorageServerInfo s = StorageServerInfo.of(0, cls, cls, host, port, "machine-" + host, blocks, 4096, port,
                rack.isEmpty() ? Map.of() : Map.of(FailureDomains.RACK_ATTRIBUTE, rack));
        return io.creel.namenode.testing.Servers.grantAll(allocator, registry.register(s));
    }

    @Test
    void copiesGoToDifferentHostsNeverToTwoServersOfOneHost() {
        add("dram", "h1", 1, 8, "");
        add("dram", "h1", 2, 8, "");
        add("dram", "h2", 3, 8, "");
        for (int i = 0; i < 6; i++) {
            AllocatedBlock b = allocator.allocate("dram", "", Set.of(), 2);
            assertEquals(2, b.copyCount());
            assertNotEquals(b.copies().get(0).server().host(), b.copies().get(1).server().host(), b.toString());
            assertEquals(b.tag(), b.copies().get(1).tag(), "copies allocated together share the block's tag");
        }
    }

    @Test
    void racksAreSpreadWhileServersDeclareThemAndEnoughAreLeft() {
        add("dram", "h1", 1, 8, "r1");
        add("dram", "h2", 2, 8, "r1");
        add("dram", "h3", 3, 8, "r2");
        for (int i = 0; i < 4; i++) {
            AllocatedBlock b = allocator.allocate("dram", "", Set.of(), 2);
            Set<String> racks = new HashSet<>();
            b.copies().forEach(c -> racks.add(FailureDomains.rack(c.server())));
            assertEquals(Set.of("r1", "r2"), racks, b.toString());
        }
        AllocatedBlock three = allocator.allocate("dram", "", Set.of(), 3);
        Set<String> hosts = new HashSet<>();
        three.copies().forEach(c -> hosts.add(c.server().host()));
        assertEquals(3, hosts.size(), "two racks for three copies: still three hosts");
    }

    @Test
    void aCopySpillsDownTheClassOrderToFindAnotherHost() {
        add("dram", "h1", 1, 8, "");
        add("disk", "h2", 2, 8, "");
        AllocatedBlock b = allocator.allocate("dram", "", Set.of(), 2);
        assertEquals("dram", b.server().storageClass());
        assertEquals("disk", b.others().get(0).server().storageClass());
    }

    @Test
    void tooFewHostsIsUnavailableNamingTheFactorAndNothingIsTaken() {
        StorageServerInfo a = add("dram", "h1", 1, 8, "");
        StorageServerInfo b = add("dram", "h1", 2, 8, "");
        Expect.error(ErrorCode.UNAVAILABLE, () -> allocator.allocate("dram", "", Set.of(), 2),
                "replication 2 needs 2 copies on storage servers of different hosts");
        assertEquals(0, allocator.counts(a).used() + allocator.counts(b).used(), "the first copy was given back");
    }

    @Test
    void aFullServerOnTheOnlyOtherHostIsOutOfSpaceNotAMissingHost() {
        add("dram", "h1", 1, 8, "");
        add("dram", "h2", 2, 1, "");
        allocator.allocate("dram", "", Set.of(), 2);
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> allocator.allocate("dram", "", Set.of(), 2),
                "no free block in storage classes dram, disk on a host other than h1");
    }

    @Test
    void aRepairCopyAvoidsTheHostsOfTheCopiesLeftAndGetsANewerTag() {
        StorageServerInfo h1 = add("dram", "h1", 1, 8, "");
        add("dram", "h2", 2, 8, "");
        add("dram", "h3", 3, 8, "");
        AllocatedBlock b = allocator.allocate("dram", "", Set.of(), 2);
        BlockCopy left = b.copies().get(0);
        BlockCopy made = allocator.allocateCopy("dram", List.of(left), Set.of(), 2, 0);
        assertNotEquals(left.server().host(), made.server().host());
        assertTrue(Long.compareUnsigned(made.tag(), b.tag()) > 0, "a later copy's block may have a newer tag");
        assertTrue(h1 != null);
    }

    @Test
    void factorsPerClassAreParsedAndBadOnesNamed() {
        ReplicationFactors f = ReplicationFactors.parse(1, "dram=2, disk = 3");
        assertEquals(2, f.of("dram"));
        assertEquals(3, f.of("disk"));
        assertEquals(1, f.of("nvme"));
        for (String bad : List.of("dram", "dram=x", "=2", "dram=0", "dram=9")) {
            CreelException e = assertThrows(CreelException.class, () -> ReplicationFactors.parse(1, bad), bad);
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("creel.namenode.replication.classes"), e.getMessage());
        }
        CreelException e = assertThrows(CreelException.class,
                () -> allocator.useReplication(ReplicationFactors.parse(1, "ssd=2")));
        assertTrue(e.getMessage().contains("'ssd'"), e.getMessage());
    }
}
