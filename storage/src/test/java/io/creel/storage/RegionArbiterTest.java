package io.creel.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.RegionGrantReply;
import io.creel.storage.format.BlockTags;
import io.creel.storage.runtime.RegionArbiter;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegionArbiterTest {
    private final BlockTags tags = new BlockTags(ByteBuffer.allocateDirect(10 * 8), 10);
    private final RegionArbiter arbiter = new RegionArbiter("test", 10, 4, tags); // regions: 0-3, 4-7, 8-9

    private static List<Integer> regions(RegionGrantReply r) {
        return r.grants().stream().map(RegionGrantReply.Grant::region).toList();
    }

    @Test
    void regionsGoToWhoeverAsksUntilNoneIsLeft() {
        assertEquals(3, arbiter.regionCount());
        RegionGrantReply a = arbiter.grant(1, 2);
        assertEquals(List.of(0, 1), regions(a));
        assertEquals(4, a.regionBlocks());
        assertFalse(a.full());
        RegionGrantReply b = arbiter.grant(2, 5);
        assertEquals(List.of(2), regions(b), "the busy asker gets only what is left");
        assertTrue(b.full());
        assertTrue(arbiter.grant(2, 1).grants().isEmpty());
    }

    @Test
    void aReleasedRegionCanBeGrantedToAnotherNamenodeWithATagFloorAboveEverythingInIt() {
        arbiter.grant(1, 3);
        tags.claim(5, 1000);
        tags.claim(6, 900);
        arbiter.release(1, 1);
        arbiter.release(2, 0); // not the owner: ignored
        assertEquals(1, arbiter.ownerOf(0));
        RegionGrantReply r = arbiter.grant(2, 1);
        assertEquals(List.of(1), regions(r));
        assertEquals(1000, r.grants().get(0).minTag(), "the new owner's tags must exceed the old owner's");
    }

    @Test
    void aRestartedNamenodesOldRegionsAreTakenBackUnlessItClaimsThem() {
        arbiter.grant(1, 2);
        arbiter.grant(2, 1);
        assertEquals(2, arbiter.forget(1));
        assertEquals(2, arbiter.freeRegions());
        RegionGrantReply claimed = arbiter.sync(3, List.of(0, 2));
        assertEquals(List.of(0), regions(claimed), "region 2 belongs to another namenode");
        assertEquals(3, arbiter.ownerOf(0));
        assertEquals(2, arbiter.ownerOf(2));
    }

    @Test
    void aRestartedNamenodesRegionsWaitForItsClaimAndNoOtherNamenodeGetsThemMeanwhile() {
        long[] now = {1_000};
        RegionArbiter a = new RegionArbiter("test", 10, 4, tags, () -> now[0]);
        a.grant(1, 2); // regions 0 and 1: namenode instance 1
        a.grant(2, 1); // region 2: another namenode
        assertEquals(2, a.handOver(1, 3, 30_000), "instance 1 restarted as instance 3");
        RegionGrantReply other = a.grant(2, 3);
        assertTrue(other.grants().isEmpty(), "they may hold instance 3's data, not claimed yet");
        assertTrue(other.full());
        assertEquals(List.of(0), regions(a.sync(3, List.of(0))), "it claims the one its log says holds data");
        now[0] += java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        assertEquals(List.of(1), regions(a.grant(2, 3)), "the one it did not claim is free once the time is up");
        assertEquals(3, a.ownerOf(0), "a claimed one is held for good");
        assertEquals(List.of(), regions(a.sync(3, List.of(1))), "too late: another namenode has it");
    }

    @Test
    void aRestartedNamenodeThatAsksForRegionsGetsItsOwnUnclaimedOnes() {
        arbiter.grant(1, 3);
        arbiter.handOver(1, 3, 30_000);
        assertEquals(List.of(0, 1, 2), regions(arbiter.grant(3, 3)), "alone on this server, it is not kept waiting");
    }

    @Test
    void aServerRestartedOnItsDataGrantsNothingUntilItsNamenodesHaveClaimedTheirRegions() {
        long[] now = {1_000};
        tags.claim(5, 77); // region 1 holds a block some namenode wrote before the restart
        RegionArbiter a = new RegionArbiter("test", 10, 4, tags, () -> now[0]);
        assertTrue(a.holdsData());
        a.holdGrantsForClaims(2, 10_000);
        RegionGrantReply early = a.grant(2, 3);
        assertTrue(early.grants().isEmpty(), "namenode 1 has not claimed region 1 yet");
        assertFalse(early.full(), "nothing is full: the asker tries again");
        assertEquals(List.of(1), regions(a.sync(1, List.of(1))));
        assertEquals(List.of(), regions(a.sync(2, List.of())), "the other has nothing there");
        assertEquals(List.of(0, 2), regions(a.grant(2, 3)), "every namenode has claimed: grants go on");
        assertEquals(1, a.ownerOf(1));
    }

    @Test
    void aServerRestartedOnItsDataGrantsAgainAfterTheClaimTimeEvenIfANamenodeNeverCame() {
        long[] now = {1_000};
        RegionArbiter a = new RegionArbiter("test", 10, 4, tags, () -> now[0]);
        assertFalse(a.holdsData(), "a fresh volume holds no tag");
        a.holdGrantsForClaims(2, 10_000);
        assertTrue(a.grant(1, 1).grants().isEmpty());
        now[0] += java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        assertEquals(List.of(0), regions(a.grant(1, 1)));
    }

    @Test
    void badRegionsAndInstancesAreRefused() {
        assertEquals(ErrorCode.INVALID_ARGUMENT, assertThrows(CreelException.class, () -> arbiter.release(1, 3)).code());
        assertEquals(ErrorCode.INVALID_ARGUMENT, assertThrows(CreelException.class, () -> arbiter.grant(0, 1)).code());
        assertEquals(ErrorCode.INVALID_ARGUMENT,
                assertThrows(CreelException.class, () -> arbiter.sync(1, List.of(-1))).code());
    }
}
