package io.creel.namenode.namespace;

import static io.creel.namenode.namespace.NamespaceFixture.CONN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.testing.Expect;
import java.util.List;
import org.junit.jupiter.api.Test;

class DirectoryRecordTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;

    private DirectoryRecord recordAt(String container, int slot) {
        long id = f.lookup(container).node().id();
        BlockLocation b = ns.map(id, (long) slot * DirectoryRecord.SIZE / NamespaceFixture.BLOCK, 0);
        return f.store.record(b, slot);
    }

    @Test
    void eachChildGetsTheLowestFreeSlotAndItsRecordIsWrittenBeforeTheCallReturns() {
        f.create("/d", NodeType.DIRECTORY);
        OpenReply a = f.create("/d/a", NodeType.FILE);
        OpenReply b = f.create("/d/b", NodeType.TABLE);
        assertEquals(new DirectoryRecord(NodeType.FILE, a.node().id(), "a"), recordAt("/d", 0));
        assertEquals(new DirectoryRecord(NodeType.TABLE, b.node().id(), "b"), recordAt("/d", 1));
        assertEquals(2L * DirectoryRecord.SIZE, f.lookup("/d").node().length());
        assertEquals(List.of("d"), f.names("/"));
    }

    @Test
    void removeClearsTheRecordAndTheSlotIsReusedOnlyAfterTheDelay() {
        f.create("/d", NodeType.DIRECTORY);
        f.create("/d/a", NodeType.FILE);
        f.create("/d/b", NodeType.FILE);
        Expect.done(ns.remove("/d/a", false));
        assertEquals(List.of("b"), f.names("/d"));
        f.create("/d/c", NodeType.FILE);
        assertEquals("c", recordAt("/d", 2).name(), "slot 0 still waits out the delay");
        f.clock.advance(NamespaceFixture.DELAY);
        f.create("/d/e", NodeType.FILE);
        assertEquals("e", recordAt("/d", 0).name(), "the freed slot is reused after the delay");
        assertEquals(List.of("b", "c", "e"), f.names("/d"));
    }

    @Test
    void theLengthFollowsTheHighestUsedSlot() {
        f.create("/d", NodeType.DIRECTORY);
        f.create("/d/a", NodeType.FILE);
        f.create("/d/b", NodeType.FILE);
        Expect.done(ns.remove("/d/b", false));
        assertEquals(DirectoryRecord.SIZE, f.lookup("/d").node().length());
        Expect.done(ns.remove("/d/a", false));
        assertEquals(0, f.lookup("/d").node().length());
    }

    @Test
    void recordsSpanSeveralContainerBlocks() {
        f.create("/bag", NodeType.BAG);
        int perBlock = NamespaceFixture.BLOCK / DirectoryRecord.SIZE;
        for (int i = 0; i < perBlock * 2 + 1; i++) {
            f.create("/bag/part-" + i, NodeType.FILE);
        }
        assertEquals(perBlock * 2 + 1, f.list("/bag").size());
        long id = f.lookup("/bag").node().id();
        assertNotNull(ns.map(id, 2, 0));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(id, 3, 0));
    }

    @Test
    void moveWritesTheNewRecordAndClearsTheOldOne() {
        f.create("/a", NodeType.DIRECTORY);
        f.create("/b", NodeType.DIRECTORY);
        f.create("/a/x", NodeType.FILE);
        Expect.done(ns.move("/a/x", "/b/y"));
        assertEquals(List.of(), f.names("/a"));
        assertEquals(List.of("y"), f.names("/b"));
        Expect.done(ns.move("/b/y", "/b/z"));
        assertEquals(List.of("z"), f.names("/b"));
    }

    @Test
    void aKeyValueRecordIsWrittenAtItsFirstCommitOnly() {
        f.create("/t", NodeType.TABLE);
        OpenReply v1 = f.create("/t/k", NodeType.KEYVALUE);
        assertEquals(List.of(), f.names("/t"), "an uncommitted key is not listed");
        f.commit(v1, 1, true);
        assertEquals(List.of("k"), f.names("/t"));
        int writes = f.store.writes();
        OpenReply v2 = f.create("/t/k", NodeType.KEYVALUE);
        f.commit(v2, 1, true);
        assertEquals(writes, f.store.writes(), "a replacement keeps the key's record");
        assertEquals(List.of("k"), f.names("/t"));
        Expect.done(ns.remove("/t/k", false));
        assertEquals(List.of(), f.names("/t"));
    }

    @Test
    void aNonEnumerableTableGetsNoRecords() {
        Expect.done(ns.create(new CreateRequest("/t", NodeType.TABLE, "", "", false), CONN));
        int writes = f.store.writes();
        f.commit(f.create("/t/k", NodeType.KEYVALUE), 1, true);
        assertEquals(writes, f.store.writes());
        assertEquals(0, f.lookup("/t").node().length());
        assertNotEquals(0, f.lookup("/t/k").node().id());
    }

    @Test
    void aFailedRecordWriteUndoesTheCreate() {
        f.create("/d", NodeType.DIRECTORY);
        f.store.failWrites(true);
        Expect.error(ErrorCode.UNAVAILABLE, () -> f.createAsync("/d/x", NodeType.FILE), "/d/x", "record");
        f.store.failWrites(false);
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/d/x"));
        assertEquals(2, ns.nodeCount());
        f.create("/d/x", NodeType.FILE);
        assertEquals(List.of("x"), f.names("/d"));
    }

    @Test
    void aFailedRecordWriteUndoesTheMove() {
        f.create("/a", NodeType.DIRECTORY);
        f.create("/b", NodeType.DIRECTORY);
        f.create("/a/x", NodeType.FILE);
        f.store.failWrites(true);
        Expect.error(ErrorCode.UNAVAILABLE, () -> ns.move("/a/x", "/b/x"), "record");
        f.store.failWrites(false);
        assertEquals(NodeType.FILE, f.lookup("/a/x").node().type());
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/b/x"));
        assertEquals(List.of("x"), f.names("/a"));
    }
}
