package io.creel.namenode.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.testing.Expect;
import org.junit.jupiter.api.Test;

/**
 * A writer that cannot reach the server of a block it was given asks for the block again: the
 * namenode moves it to another server as long as none of it was published, answers later askers
 * for the same block with the new place, and keeps that server out of the writer's further blocks.
 */
class UnreachableServerTest {
    private final NamespaceFixture f = new NamespaceFixture(64, 64); // one DRAM and one disk server
    private final Namespace ns = f.ns;

    @Test
    void anUnpublishedBlockMovesToAnotherServerOnceEvenWhenAskedTwice() {
        OpenReply w = f.create("/f", NodeType.FILE);
        long id = w.node().id();
        BlockLocation b1 = ns.map(id, 1, w.lease());
        assertEquals("dram", b1.server().storageClass());

        BlockLocation moved = ns.map(id, 1, w.lease(), b1.tag(), 0);
        assertNotEquals(b1.server().serverId(), moved.server().serverId(), "another server (here: disk)");
        assertEquals(1, moved.blockIndex());
        assertEquals(moved, ns.map(id, 1, w.lease(), b1.tag(), 0), "the second asker gets the block where it is now");
        assertEquals(moved, ns.map(id, 1, 0), "readers see it there too");
        assertEquals(moved.server(), ns.map(id, 2, w.lease()).server(), "the writer's next blocks avoid that server");
        assertEquals(1, f.allocator.counts(b1.server()).pending(), "the abandoned block waits out the reuse delay");
    }

    @Test
    void aBlockHoldingPublishedBytesCannotMove() {
        OpenReply w = f.create("/f", NodeType.FILE);
        long id = w.node().id();
        f.commit(w, 10, false);
        Expect.error(ErrorCode.UNAVAILABLE, () -> ns.map(id, 0, w.lease(), w.firstBlock().tag(), 0),
                "holds published bytes", w.firstBlock().server().address());
        assertEquals(w.firstBlock(), ns.map(id, 0, 0), "nothing changed");
    }

    @Test
    void onlyTheLeaseHolderMovesBlocksAndOnlyBlocksThatExist() {
        OpenReply w = f.create("/f", NodeType.FILE);
        long id = w.node().id();
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.map(id, 0, w.lease() + 1, w.firstBlock().tag(), 0));
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.map(id, 3, w.lease(), 12345, 0), "never allocated");
    }

    @Test
    void withNoOtherServerTheWriterIsOutOfSpaceAndTheNextWriterMayUseTheServerAgain() {
        NamespaceFixture one = new NamespaceFixture(64, 0);
        OpenReply w = one.create("/f", NodeType.FILE);
        long id = w.node().id();
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> one.ns.map(id, 0, w.lease(), w.firstBlock().tag(), 0),
                "other than the 1 this writer could not reach");
        assertEquals(w.firstBlock(), one.ns.map(id, 0, 0), "nothing changed");
        one.commit(w, 0, true);
        OpenReply again = one.ns.lookup("/f", true, NamespaceFixture.CONN);
        assertEquals(w.firstBlock().server(), one.ns.map(id, 0, again.lease()).server(),
                "a new lease starts with every server");
    }
}
