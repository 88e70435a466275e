package io.creel.namenode.namespace;

import static io.creel.namenode.namespace.NamespaceFixture.CONN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import org.junit.jupiter.api.Test;

/**
 * Files and KeyValues of up to the inline limit keep their bytes in the namenode: created with
 * their value in one call, read from the lookup reply, moved to blocks when they outgrow the limit,
 * never moved back — with KeyValue replacement as atomic as ever.
 */
class InlineDataTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;
    private final int limit = ns.inlineMax();

    InlineDataTest() {
        f.create("/t", NodeType.TABLE);
        f.create("/d", NodeType.DIRECTORY);
        // The first child of each container takes a block for the records; these make it exist.
        f.create("/d/first", NodeType.DIRECTORY);
        put("/t/first", new byte[0]);
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    private OpenReply put(String path, byte[] value) {
        return Expect.done(ns.create(new CreateRequest(path, NodeType.KEYVALUE, "", "", true, value), CONN));
    }

    private long usedBlocks() {
        long used = 0;
        for (ServerRegistry.ServerView s : f.registry.servers()) {
            BlockAllocator.Counts c = f.allocator.counts(s.info());
            used += c.used() + c.pending();
        }
        return used;
    }

    @Test
    void aSmallValueIsCreatedAndCommittedInOneCallWithoutABlock() {
        long before = usedBlocks();
        byte[] v = bytes(1000, 1);
        OpenReply put = put("/t/k", v);
        assertEquals(0, put.lease(), "nothing is left to write: the version is committed");
        assertNull(put.firstBlock());
        assertEquals(limit, put.inlineLimit(), "the reply tells the client the limit");
        assertNull(put.data(), "the client has the value: the reply does not carry it back");
        OpenReply got = f.lookup("/t/k");
        assertEquals(put.node().id(), got.node().id());
        assertEquals(1000, got.node().length());
        assertArrayEquals(v, got.data(), "the value comes with the lookup");
        assertNull(got.firstBlock());
        assertEquals(before, usedBlocks(), "no block holds it");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(got.node().id(), 0, 0), "kept inline");
        assertEquals(2, f.names("/t").size(), "an enumerable Table lists the key");
    }

    @Test
    void aReplacementIsAtomicAndTheOldVersionIsRetired() {
        OpenReply v1 = put("/t/k", bytes(10, 1));
        OpenReply pending = Expect.done(ns.create(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true), CONN));
        OpenReply v2 = put("/t/k", bytes(20, 2));
        assertNotEquals(v1.node().id(), v2.node().id());
        assertArrayEquals(bytes(20, 2), f.lookup("/t/k").data(), "the last commit wins");
        f.commit(pending, 0, false);
        assertArrayEquals(bytes(20, 2), f.lookup("/t/k").data(), "a writer's sync publishes nothing");
        Expect.done(ns.commit(pending.node().id(), pending.lease(), 5, true, bytes(5, 3)));
        assertArrayEquals(bytes(5, 3), f.lookup("/t/k").data(), "a writer's inline close replaces the value");
        assertEquals(2, f.names("/t").size(), "the key keeps its one record");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.commit(v1.node().id(), 1, 0, true), "removed or replaced");
    }

    @Test
    void aValueOverTheLimitIsAnOrdinaryCreate() {
        byte[] big = bytes(limit + 1, 4);
        OpenReply w = put("/t/big", big);
        assertNotEquals(0, w.lease(), "the writer must write it to blocks");
        assertNotNull(w.firstBlock());
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/t/big"), "no such node");
        ns.map(w.node().id(), 1, w.lease()); // the block holds 4096: a second one for the last byte
        f.commit(w, big.length, true);
        OpenReply r = f.lookup("/t/big");
        assertNull(r.data());
        assertNotNull(r.firstBlock());
    }

    @Test
    void onlyAKeyValueIsCreatedWithItsValue() {
        Expect.error(ErrorCode.INVALID_ARGUMENT,
                () -> ns.create(new CreateRequest("/d/f", NodeType.FILE, "", "", true, bytes(3, 1)), CONN),
                "only a KeyValue");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.create(new CreateRequest("/missing/k", NodeType.KEYVALUE, "", "",
                true, bytes(3, 1)), CONN), "/missing");
        Expect.error(ErrorCode.INVALID_PARENT, () -> ns.create(new CreateRequest("/d/k", NodeType.KEYVALUE, "", "",
                true, bytes(3, 1)), CONN), "a KeyValue may only live in a Table");
    }

    @Test
    void aFileCommittedInlineGivesBackItsFirstBlockAndReadsFromTheLookup() {
        long before = usedBlocks();
        OpenReply w = f.create("/d/f", NodeType.FILE);
        assertNotNull(w.firstBlock(), "a File still gets its first block eagerly");
        Expect.done(ns.commit(w.node().id(), w.lease(), 3, false, bytes(3, 1)));
        assertArrayEquals(bytes(3, 1), f.lookup("/d/f").data(), "a sync publishes inline bytes");
        Expect.done(ns.commit(w.node().id(), w.lease(), 7, true, bytes(7, 1)));
        OpenReply r = f.lookup("/d/f");
        assertArrayEquals(bytes(7, 1), r.data());
        assertNull(r.firstBlock(), "the block it never used went back at the close");
        assertEquals(before, usedBlocks());
    }

    @Test
    void aFileThatOutgrowsTheLimitMovesToBlocksAndNeverBack() {
        OpenReply w = f.create("/d/f", NodeType.FILE);
        Expect.done(ns.commit(w.node().id(), w.lease(), 100, true, bytes(100, 1)));
        OpenReply a = ns.lookup("/d/f", true, CONN);
        assertArrayEquals(bytes(100, 1), a.data(), "an appender gets the bytes it continues");
        assertEquals(limit, a.inlineLimit());
        assertNull(a.firstBlock(), "an inline File has no block");
        ns.map(a.node().id(), 0, a.lease()); // the appender writes everything to blocks 0 and 1
        ns.map(a.node().id(), 1, a.lease());
        Expect.done(ns.commit(a.node().id(), a.lease(), limit + 50, false));
        OpenReply r = f.lookup("/d/f");
        assertNull(r.data(), "its bytes are in blocks now");
        assertEquals(limit + 50, r.node().length());
        assertNotNull(r.firstBlock());
        Expect.error(ErrorCode.INVALID_ARGUMENT,
                () -> ns.commit(a.node().id(), a.lease(), limit + 60, false, bytes(limit + 60, 1)), "cannot be kept");
        f.commit(a, limit + 50, true);
        assertEquals(limit + 50, f.lookup("/d/f").node().length());

        OpenReply small = f.create("/d/g", NodeType.FILE);
        f.commit(small, 100, false); // 100 bytes published in its block
        Expect.error(ErrorCode.INVALID_ARGUMENT,
                () -> ns.commit(small.node().id(), small.lease(), 200, true, bytes(200, 1)), "in blocks");
    }

    @Test
    void inlineCommitsAreCheckedLikeEveryOther() {
        OpenReply w = f.create("/d/f", NodeType.FILE);
        Expect.error(ErrorCode.INVALID_ARGUMENT,
                () -> ns.commit(w.node().id(), w.lease(), limit + 1, true, bytes(limit + 1, 1)),
                "at most " + limit, "creel.namenode.inline.max");
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> ns.commit(w.node().id(), w.lease() + 1, 3, true, bytes(3, 1)));
        Expect.done(ns.commit(w.node().id(), w.lease(), 10, false, bytes(10, 1)));
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.commit(w.node().id(), w.lease(), 5, true, bytes(5, 1)),
                "may not shrink");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.commit(f.lookup("/d").node().id(), 1, 3, true, bytes(3, 1)),
                "only Files and KeyValues");
    }

    @Test
    void anAbandonedInlineWriterKeepsTheCommittedBytes() {
        OpenReply w = f.create("/d/f", NodeType.FILE);
        Expect.done(ns.commit(w.node().id(), w.lease(), 4, false, bytes(4, 9)));
        Expect.done(ns.abandon(w.node().id(), w.lease()));
        OpenReply r = f.lookup("/d/f");
        assertArrayEquals(bytes(4, 9), r.data());
        assertNull(r.firstBlock(), "the unused block went back with the lease");
        assertEquals(false, r.node().writing());
    }

    @Test
    void readersNeverLearnTheBlocksAWriterHoldsBeyondTheCommittedBytes() {
        OpenReply w = f.create("/d/f", NodeType.FILE);
        Expect.done(ns.commit(w.node().id(), w.lease(), 3, true, bytes(3, 1)));
        OpenReply a = ns.lookup("/d/f", true, CONN);
        ns.map(a.node().id(), 0, a.lease()); // the appender moves to blocks, not committed yet
        ns.map(a.node().id(), 1, a.lease());
        assertNull(f.lookup("/d/f").firstBlock(), "block 0 holds nothing committed: it may still go back");
        OpenReply e = f.create("/d/empty", NodeType.FILE);
        assertNotNull(e.firstBlock(), "the writer gets its first block eagerly");
        assertNull(f.lookup("/d/empty").firstBlock(), "a reader of the empty File does not");
        Expect.done(ns.abandon(a.node().id(), a.lease()));
        OpenReply again = ns.lookup("/d/f", true, CONN);
        assertNull(again.firstBlock(), "the abandoned blocks went back");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.map(again.node().id(), 1, again.lease()),
                "with 0 blocks the next one is index 0");
        ns.map(again.node().id(), 0, again.lease());
        ns.map(again.node().id(), 1, again.lease());
        Expect.done(ns.commit(again.node().id(), again.lease(), limit + 1, true));
        assertNotNull(f.lookup("/d/f").firstBlock(), "once it holds committed bytes, readers learn it");
        assertNotNull(f.lookup("/d").firstBlock(), "a container's records are always readable");
    }

    @Test
    void aMovedInlineNodeKeepsItsBytes() {
        put("/t/k", bytes(12, 5));
        OpenReply w = f.create("/d/f", NodeType.FILE);
        Expect.done(ns.commit(w.node().id(), w.lease(), 6, true, bytes(6, 6)));
        f.create("/e", NodeType.DIRECTORY);
        OpenReply moved = Expect.done(ns.move("/d/f", "/e/g"));
        assertArrayEquals(bytes(6, 6), moved.data(), "the move's reply reads like a lookup");
        assertEquals(0, moved.lease());
        assertArrayEquals(bytes(6, 6), f.lookup("/e/g").data());
    }

    @Test
    void aNamespaceWithoutInliningKeepsEverythingInBlocks() {
        NamespaceFixture none = new NamespaceFixture(64, 64, 0);
        none.create("/t", NodeType.TABLE);
        OpenReply w = Expect.done(none.ns.create(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true,
                bytes(3, 1)), CONN));
        assertNotEquals(0, w.lease(), "a value is never kept: the writer writes it");
        assertEquals(0, w.inlineLimit());
        Expect.error(ErrorCode.INVALID_ARGUMENT,
                () -> none.ns.commit(w.node().id(), w.lease(), 3, true, bytes(3, 1)), "at most 0");
    }
}
