package io.creel.namenode.namespace;

import static io.creel.namenode.namespace.NamespaceFixture.CONN;
import static io.creel.namenode.namespace.NamespaceFixture.OTHER_CONN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.testing.Expect;
import org.junit.jupiter.api.Test;

class KeyValueSemanticsTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;

    KeyValueSemanticsTest() {
        f.create("/t", NodeType.TABLE);
    }

    private OpenReply put(Object conn) {
        return Expect.done(ns.create(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true), conn));
    }

    @Test
    void aKeyValueLivesOnlyInATable() {
        f.create("/d", NodeType.DIRECTORY);
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/d/k", NodeType.KEYVALUE),
                "a KeyValue may only live in a Table", "/d is a Directory");
    }

    @Test
    void aFirstCreateIsInvisibleUntilItsCommit() {
        OpenReply w = put(CONN);
        assertNotNull(w.firstBlock());
        assertNotEquals(0, w.lease());
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/t/k"), "/t/k");
        f.commit(w, 3, false);
        // a commit without close publishes nothing
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/t/k"), "/t/k");
        f.commit(w, 3, true);
        OpenReply r = f.lookup("/t/k");
        assertEquals(w.node().id(), r.node().id());
        assertEquals(3, r.node().length());
        assertEquals(w.firstBlock(), r.firstBlock());
    }

    @Test
    void aReplacementBecomesVisibleAtomicallyAtItsCommit() {
        OpenReply v1 = put(CONN);
        f.commit(v1, 10, true);
        OpenReply v2 = put(CONN);
        assertNotEquals(v1.node().id(), v2.node().id(), "each version is its own node");
        f.commit(v2, 20, false);
        assertEquals(v1.node().id(), f.lookup("/t/k").node().id(), "readers see the old value until the commit");
        assertEquals(10, f.lookup("/t/k").node().length());
        f.commit(v2, 20, true);
        assertEquals(v2.node().id(), f.lookup("/t/k").node().id());
        assertEquals(20, f.lookup("/t/k").node().length());
    }

    @Test
    void amongConcurrentWritersTheLastCommitWins() {
        OpenReply a = put(CONN);
        OpenReply b = put(OTHER_CONN);
        f.commit(b, 2, true);
        f.commit(a, 1, true);
        assertEquals(a.node().id(), f.lookup("/t/k").node().id());
    }

    @Test
    void aReplacedVersionStaysMappableUntilTheDelayThenItsBlocksAreReused() {
        OpenReply v1 = put(CONN);
        f.commit(v1, 10, true);
        OpenReply v2 = put(CONN);
        f.commit(v2, 10, true);
        assertEquals(v1.firstBlock(), ns.map(v1.node().id(), 0, 0), "in-flight readers of the old value finish");
        f.clock.advance(NamespaceFixture.DELAY);
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(v1.node().id(), 0, 0));
    }

    @Test
    void anUncommittedVersionIsDroppedWhenItsConnectionCloses() {
        OpenReply v1 = put(CONN);
        f.commit(v1, 1, true);
        OpenReply v2 = put(OTHER_CONN);
        ns.connectionClosed(OTHER_CONN);
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.commit(v2.node().id(), v2.lease(), 1, true));
        assertEquals(v1.node().id(), f.lookup("/t/k").node().id());
    }

    @Test
    void anAbandonedVersionIsDroppedAndTheKeyKeepsItsValue() {
        OpenReply v1 = put(CONN);
        f.commit(v1, 7, true);
        OpenReply v2 = put(CONN);
        Expect.done(ns.abandon(v2.node().id(), v2.lease()));
        assertEquals(v1.node().id(), f.lookup("/t/k").node().id());
        assertEquals(7, f.lookup("/t/k").node().length());
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.commit(v2.node().id(), v2.lease(), 1, true));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.abandon(v2.node().id(), v2.lease()));

        OpenReply first = Expect.done(ns.create(new CreateRequest("/t/new", NodeType.KEYVALUE, "", "", true), CONN));
        Expect.done(ns.abandon(first.node().id(), first.lease()));
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/t/new"), "/t/new");
        assertEquals(java.util.List.of("k"), f.names("/t"), "an abandoned first value leaves no record");
    }

    @Test
    void aCommitAfterItsTableWasRemovedFails() {
        OpenReply v = put(CONN);
        Expect.done(ns.remove("/t", true));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.commit(v.node().id(), v.lease(), 1, true));
    }

    @Test
    void aKeyValueIsNotAppended() {
        f.commit(put(CONN), 1, true);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.lookup("/t/k", true, CONN), "replaced by a new create");
    }
}
