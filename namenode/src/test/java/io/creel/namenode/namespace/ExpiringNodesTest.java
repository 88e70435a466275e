package io.creel.namenode.namespace;

import static io.creel.namenode.namespace.NamespaceFixture.CONN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.NodeExpiry;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.testing.Expect;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Expiring nodes in one namespace, on a clock moved by hand: a silent owner's node goes with its
 * subtree and blocks, a renewing owner's never does, a time to live is the node's own grace, and an
 * owner (only it) hands a node over or makes it permanent.
 */
class ExpiringNodesTest {
    static final long TIMEOUT = 30_000;
    final NamespaceFixture f = new NamespaceFixture();
    final RequestIdentity alice = RequestIdentity.newClient();
    final RequestIdentity bob = RequestIdentity.newClient();
    long sequence;

    ExpiringNodesTest() {
        f.ns.setSessionTimeout(TIMEOUT);
    }

    OpenReply create(String path, NodeType type, Expiry expiry, RequestIdentity who) {
        return Expect.done(createAsync(path, type, expiry, who));
    }

    java.util.concurrent.CompletableFuture<OpenReply> createAsync(String path, NodeType type, Expiry expiry,
                                                                RequestIdentity who) {
        return f.ns.create(new CreateRequest(path, type, "", "", true, null, expiry), CONN,
                who == null ? null : who.withSequence(++sequence));
    }

    /** Blocks in use on every server. */
    long usedBlocks() {
        return f.registry.servers().stream().mapToLong(s -> f.allocator.counts(s.info()).used()).sum();
    }

    /** A directory owned by {@code who} with a File holding one block and a sub-directory with a File. */
    void tree(String top, Expiry expiry, RequestIdentity who) {
        create(top, NodeType.DIRECTORY, expiry, who);
        OpenReply file = f.create(top + "/part-0", NodeType.FILE);
        f.commit(file, 100, true);
        f.create(top + "/sub", NodeType.DIRECTORY);
        f.commit(f.create(top + "/sub/part-1", NodeType.FILE), 10, true);
    }

    boolean exists(String path) {
        try {
            f.lookup(path);
            return true;
        } catch (io.creel.common.error.CreelException e) {
            assertEquals(ErrorCode.NOT_FOUND, e.code(), e.getMessage());
            return false;
        }
    }

    @Test
    void aSilentOwnersDirectoryGoesWithEverythingBelowItAfterTheTimeout() {
        f.create("/other", NodeType.DIRECTORY);
        long usedBefore = usedBlocks();
        tree("/app", Expiry.SESSION, alice);
        assertTrue(usedBlocks() > usedBefore);
        long nodesBefore = f.ns.nodeCount();
        NodeExpiry shown = f.lookup("/app").node().expiry();
        assertNotNull(shown, "stat shows the expiry");
        assertEquals(alice.clientText(), shown.owner());
        assertTrue(shown.session());
        assertEquals(TIMEOUT, shown.graceMillis());
        assertNull(f.lookup("/app/part-0").node().expiry(), "only the owned node itself carries an expiry");

        f.clock.advance(TIMEOUT);
        assertEquals(0, f.ns.expireDue(), "not before the whole timeout has passed");
        assertEquals(TIMEOUT, f.lookup("/app").node().expiry().silentMillis());
        f.clock.advance(1);
        assertEquals(1, f.ns.expireDue());
        assertTrue(!exists("/app") && !exists("/app/sub/part-1"));
        assertEquals(nodesBefore - 4, f.ns.nodeCount(), "the directory and the three nodes below it are gone");
        assertEquals(0, f.ns.ownedBy(alice.clientHigh(), alice.clientLow()));
        assertEquals(java.util.List.of("other"), f.names("/"), "the listing of / no longer names it");
        f.clock.advance(NamespaceFixture.DELAY + 1);
        f.ns.releaseDue();
        assertEquals(usedBefore, usedBlocks(), "its blocks are free again once the reuse delay is over");
    }

    @Test
    void aRenewingOwnersNodesStayAndOthersExpireAlone() {
        tree("/live", Expiry.SESSION, alice);
        tree("/dead", Expiry.SESSION, bob);
        create("/ttl", NodeType.DIRECTORY, Expiry.timeToLive(Duration.ofMinutes(5)), bob);
        create("/kept", NodeType.DIRECTORY, Expiry.NONE, alice);
        for (int i = 0; i < 10; i++) {
            f.clock.advance(TIMEOUT / 2);
            f.ns.renewOwner(alice.clientHigh(), alice.clientLow());
            f.ns.expireDue();
        }
        assertTrue(exists("/live/sub/part-1"), "a live owner's directory is never removed");
        assertTrue(!exists("/dead"), "the silent owner's session-bound directory went after the timeout");
        assertTrue(exists("/ttl"), "a time to live of 5 minutes outlasts the 30 s session timeout");
        assertEquals(Duration.ofMinutes(5).toMillis(), f.lookup("/ttl").node().expiry().graceMillis());
        f.clock.advance(Duration.ofMinutes(3).toMillis());
        f.ns.expireDue();
        assertTrue(!exists("/ttl"), "gone 5 minutes after its owner was last heard");
        assertTrue(exists("/kept"));
        assertNull(f.lookup("/kept").node().expiry());
    }

    @Test
    void anExpiringDirectoryInsideAnotherGoesWithIt() {
        create("/outer", NodeType.DIRECTORY, Expiry.SESSION, alice);
        create("/outer/inner", NodeType.DIRECTORY, Expiry.timeToLive(Duration.ofHours(1)), bob);
        f.clock.advance(TIMEOUT + 1);
        assertEquals(1, f.ns.expireDue());
        assertTrue(!exists("/outer"));
        assertEquals(0, f.ns.ownedBy(bob.clientHigh(), bob.clientLow()), "the inner one no longer expires: it is gone");
    }

    @Test
    void anOwnerHandsANodeOverOrMakesItPermanentAndNobodyElseCan() {
        create("/a", NodeType.DIRECTORY, Expiry.SESSION, alice);
        create("/b", NodeType.DIRECTORY, Expiry.SESSION, alice);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> (f.ns.handOver("/a", bob.clientText(), Expiry.SESSION,
                bob.withSequence(++sequence))), "owned by session " + alice.clientText(), "only its owner");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> (f.ns.handOver("/a", "not-a-session",
                Expiry.SESSION, alice.withSequence(++sequence))), "32 hex digits");

        NodeExpiry handed = Expect.done(f.ns.handOver("/a", bob.clientText(), Expiry.SESSION,
                alice.withSequence(++sequence))).expiry();
        assertEquals(bob.clientText(), handed.owner());
        assertEquals(1, f.ns.ownedBy(bob.clientHigh(), bob.clientLow()));
        assertNull(Expect.done(f.ns.handOver("/b", "", Expiry.NONE, alice.withSequence(++sequence))).expiry(),
                "made permanent");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> (f.ns.handOver("/b", "", Expiry.NONE,
                alice.withSequence(++sequence))), "not an expiring node");

        for (int i = 0; i < 4; i++) {
            f.clock.advance(TIMEOUT / 2);
            f.ns.renewOwner(bob.clientHigh(), bob.clientLow()); // the new owner beats; the old one is gone
            f.ns.expireDue();
        }
        assertTrue(exists("/a") && exists("/b"));
        f.clock.advance(TIMEOUT + 1);
        f.ns.expireDue();
        assertTrue(!exists("/a") && exists("/b"), "the new owner's silence removes it; the permanent one stays");
    }

    @Test
    void expiriesThatCannotBeAreRefusedBeforeAnythingChanges() {
        f.create("/t", NodeType.TABLE);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> createAsync("/t/k", NodeType.KEYVALUE, Expiry.SESSION, alice),
                "a KeyValue cannot expire", "its Table");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> createAsync("/anon", NodeType.DIRECTORY, Expiry.SESSION, null),
                "needs an owner");
        assertTrue(!exists("/anon"));
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> (f.ns.handOver("/t", alice.clientText(),
                Expiry.SESSION, alice.withSequence(++sequence))), "not an expiring node");
        OpenReply file = create("/scratch.bin", NodeType.FILE, Expiry.timeToLive(Duration.ofSeconds(1)), alice);
        f.commit(file, 10, true);
        f.clock.advance(1001);
        assertEquals(1, f.ns.expireDue(), "a File may expire too");
    }
}
