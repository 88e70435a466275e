package io.creel.namenode.namespace;

import static io.creel.namenode.namespace.NamespaceFixture.BLOCK;
import static io.creel.namenode.namespace.NamespaceFixture.CONN;
import static io.creel.namenode.namespace.NamespaceFixture.OTHER_CONN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.testing.Expect;
import org.junit.jupiter.api.Test;

class FileSemanticsTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;

    @Test
    void createGrantsALeaseAndCarriesTheFirstBlock() {
        OpenReply r = f.create("/f", NodeType.FILE);
        assertNotEquals(0, r.lease());
        assertNotNull(r.firstBlock());
        assertEquals(0, r.firstBlock().blockIndex());
        assertEquals(r.node().id(), r.firstBlock().nodeId());
        assertTrue(r.node().writing());
        assertEquals(0, r.node().length());
    }

    @Test
    void theFirstCreateWins() {
        f.create("/f", NodeType.FILE);
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> f.createAsync("/f", NodeType.FILE), "/f", "first create wins");
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> f.createAsync("/f", NodeType.DIRECTORY), "/f");
    }

    @Test
    void lookupSeesTheSyncedLengthAndTheFirstBlockButNoLease() {
        OpenReply w = f.create("/f", NodeType.FILE);
        f.commit(w, 100, false);
        OpenReply r = f.lookup("/f");
        assertEquals(100, r.node().length());
        assertEquals(0, r.lease());
        assertEquals(w.firstBlock(), r.firstBlock());
    }

    @Test
    void oneWriterAtATime() {
        OpenReply w = f.create("/f", NodeType.FILE);
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.lookup("/f", true, OTHER_CONN), "one writer at a time");
        f.commit(w, 10, true);
        OpenReply again = ns.lookup("/f", true, OTHER_CONN);
        assertNotEquals(0, again.lease());
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.lookup("/f", true, CONN));
    }

    @Test
    void theLeaseEndsWhenItsConnectionCloses() {
        OpenReply w = f.create("/f", NodeType.FILE);
        f.commit(w, 5, false);
        ns.connectionClosed(CONN);
        assertFalse(f.lookup("/f").node().writing());
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.commit(w.node().id(), w.lease(), 6, false));
        OpenReply appender = ns.lookup("/f", true, OTHER_CONN);
        assertEquals(5, appender.node().length(), "the committed length survives the writer");
    }

    @Test
    void aRequestThatRunsAfterItsConnectionClosedTakesNoLeaseAndChangesNothing() {
        // A create waiting for a region grant can run after the namenode saw its connection close;
        // a lease taken then would never end, and nobody could write the File again.
        f.create("/open", NodeType.FILE);
        ns.connectionClosed(CONN);
        Expect.error(ErrorCode.UNAVAILABLE, () -> f.createAsync("/late", NodeType.FILE), "/late", "closed");
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/late"), "/late"); // nothing was created
        Expect.error(ErrorCode.UNAVAILABLE, () -> ns.lookup("/open", true, CONN), "/open", "closed");
        assertFalse(f.lookup("/open").node().writing(), "no lease was taken");
        assertNotEquals(0, ns.lookup("/open", true, OTHER_CONN).lease(), "a live connection still may");
        assertNotNull(Expect.done(ns.create(new io.creel.common.protocol.CreateRequest("/late", NodeType.FILE, "", "",
                true), OTHER_CONN)));
    }

    @Test
    void anAbandonedWriterKeepsWhatItPublishedAndGivesTheLeaseBack() {
        OpenReply w = f.create("/f", NodeType.FILE);
        long id = w.node().id();
        ns.map(id, 1, w.lease());
        f.commit(w, 100, false);
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.abandon(id, w.lease() + 1), "give it back");
        var abandoned = Expect.done(ns.abandon(id, w.lease()));
        assertFalse(abandoned.writing());
        assertEquals(100, abandoned.length(), "nothing more is published");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(id, 1, 0), "no block at index 1");
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.commit(id, w.lease(), 200, true));
        assertEquals(100, ns.lookup("/f", true, OTHER_CONN).node().length(), "the next writer may open it at once");
    }

    @Test
    void onlyTheLeaseHolderMapsWithAllocationOrCommits() {
        OpenReply w = f.create("/f", NodeType.FILE);
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.map(w.node().id(), 1, w.lease() + 1), "lease");
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.commit(w.node().id(), 0, 1, false), "lease");
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.commit(w.node().id(), w.lease() + 1, 1, false), "lease");
    }

    @Test
    void blocksAreAllocatedInOrderAndReadableWithoutALease() {
        OpenReply w = f.create("/f", NodeType.FILE);
        long id = w.node().id();
        BlockLocation b1 = ns.map(id, 1, w.lease());
        assertEquals(1, b1.blockIndex());
        assertEquals(b1, ns.map(id, 1, w.lease()), "mapping an allocated block again returns it");
        assertEquals(b1, ns.map(id, 1, 0));
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.map(id, 3, w.lease()), "in order");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(id, 2, 0), "no block at index 2");
    }

    @Test
    void aCommittedLengthMayNotShrinkNorExceedTheAllocatedBlocks() {
        OpenReply w = f.create("/f", NodeType.FILE);
        f.commit(w, 1000, false);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.commit(w.node().id(), w.lease(), 999, false),
                "may not shrink");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.commit(w.node().id(), w.lease(), BLOCK + 1, false),
                "exceeds");
        ns.map(w.node().id(), 1, w.lease());
        assertEquals(BLOCK + 1, f.commit(w, BLOCK + 1, false).length());
    }

    @Test
    void closeReleasesTheLeaseAndFreesBlocksBeyondTheLength() {
        OpenReply w = f.create("/f", NodeType.FILE);
        long id = w.node().id();
        ns.map(id, 1, w.lease());
        ns.map(id, 2, w.lease());
        var closed = f.commit(w, BLOCK + 10, true);
        assertFalse(closed.writing());
        assertNotNull(ns.map(id, 1, 0));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(id, 2, 0), "no block at index 2");
        var counts = f.allocator.counts(ns.map(id, 0, 0).server());
        assertEquals(0, counts.pending(), "a block never inside a published length needs no reuse delay");
    }

    @Test
    void anEmptyClosedFileHasNoFirstBlock() {
        OpenReply w = f.create("/f", NodeType.FILE);
        f.commit(w, 0, true);
        assertNull(f.lookup("/f").firstBlock());
        OpenReply appender = ns.lookup("/f", true, CONN);
        assertNotNull(ns.map(appender.node().id(), 0, appender.lease()));
    }

    @Test
    void onlyFilesAreOpenedForAppend() {
        f.create("/d", NodeType.DIRECTORY);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.lookup("/d", true, CONN), "only a File");
    }

    @Test
    void aRemovedFileStaysMappableUntilTheReuseDelayEnds() {
        OpenReply w = f.create("/f", NodeType.FILE);
        f.commit(w, 10, true);
        Expect.done(ns.remove("/f", false));
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/f"), "/f");
        assertEquals(w.firstBlock(), ns.map(w.node().id(), 0, 0), "in-flight readers still resolve it");
        f.clock.advance(NamespaceFixture.DELAY);
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(w.node().id(), 0, 0), "does not exist");
    }

    @Test
    void aWriterOfARemovedFileIsRefused() {
        OpenReply w = f.create("/f", NodeType.FILE);
        Expect.done(ns.remove("/f", false));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(w.node().id(), 1, w.lease()), "removed");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.commit(w.node().id(), w.lease(), 1, true));
    }
}
