package io.creel.namenode.namespace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.SyncManyReply;
import io.creel.common.protocol.SyncManyRequest;
import io.creel.namenode.testing.Expect;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SYNC_MANY: many writers' syncs in one request, each applied on its own; an entry with appended
 * bytes grows a node kept inline by only those bytes; every entry is idempotent, so a retried
 * request publishes nothing twice.
 */
class SyncManyTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;

    SyncManyTest() {
        f.create("/d", NodeType.DIRECTORY);
        f.create("/d/first", NodeType.DIRECTORY); // the container's records block exists
    }

    private List<SyncManyReply.Result> sync(SyncManyRequest.Entry... entries) {
        return Expect.done(ns.syncMany(new SyncManyRequest(List.of(entries)))).results();
    }

    private static SyncManyRequest.Entry appended(OpenReply w, long length, byte[] bytes) {
        return new SyncManyRequest.Entry(w.node().id(), w.lease(), length, bytes);
    }

    @Test
    void appendedBytesGrowAnInlineNodeAndARetryChangesNothing() {
        OpenReply a = f.create("/d/a", NodeType.FILE);
        OpenReply b = f.create("/d/b", NodeType.FILE);
        List<SyncManyReply.Result> first = sync(appended(a, 3, new byte[] {1, 2, 3}), appended(b, 1, new byte[] {9}));
        assertEquals(List.of(SyncManyReply.Result.applied(3), SyncManyReply.Result.applied(1)), first);
        sync(appended(a, 5, new byte[] {4, 5}));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, f.lookup("/d/a").data(), "the second sync appended only its bytes");
        assertEquals(List.of(SyncManyReply.Result.applied(5)), sync(appended(a, 5, new byte[] {4, 5})),
                "a retry of an applied entry is answered as applied");
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, f.lookup("/d/a").data(), "and appends nothing twice");
        assertArrayEquals(new byte[] {9}, f.lookup("/d/b").data());
    }

    private long usedBlocks() {
        long used = 0;
        for (io.creel.namenode.registry.ServerRegistry.ServerView s : f.registry.servers()) {
            io.creel.namenode.allocation.BlockAllocator.Counts c = f.allocator.counts(s.info());
            used += c.used() + c.pending();
        }
        return used;
    }

    @Test
    void aFileCreatedWithBlocksOnDemandTakesNoBlockUntilItsWriterMapsOne() {
        long before = usedBlocks();
        OpenReply a = Expect.done(ns.create(new io.creel.common.protocol.CreateRequest("/d/lazy", NodeType.FILE, "",
                "", true, null, 0, io.creel.common.protocol.Expiry.NONE, false, true), NamespaceFixture.CONN));
        assertNull(a.firstBlock());
        assertEquals(before, usedBlocks());
        sync(appended(a, 3, new byte[] {1, 2, 3}));
        assertArrayEquals(new byte[] {1, 2, 3}, f.lookup("/d/lazy").data());
        ns.map(a.node().id(), 0, a.lease());
        assertEquals(before + 1, usedBlocks(), "block 0 when the writer asks for it");
    }

    @Test
    void aFailedEntryFailsAloneNamingItsNode() {
        OpenReply a = f.create("/d/a", NodeType.FILE);
        OpenReply b = f.create("/d/b", NodeType.FILE);
        List<SyncManyReply.Result> r = sync(new SyncManyRequest.Entry(b.node().id(), b.lease() + 1, 1, new byte[] {1}),
                appended(a, 2, new byte[] {7, 8}),
                appended(a, 9, new byte[] {1}));
        assertEquals(ErrorCode.LEASE_CONFLICT, r.get(0).error());
        assertTrue(r.get(0).message().contains("/d/b"), r.get(0).message());
        assertNull(r.get(1).error(), "the good entry was applied");
        assertEquals(ErrorCode.INVALID_ARGUMENT, r.get(2).error(), "bytes appended past the committed end");
        assertTrue(r.get(2).message().contains("appended at 8, but 2 bytes are committed"), r.get(2).message());
        assertArrayEquals(new byte[] {7, 8}, f.lookup("/d/a").data());
        assertEquals(0, f.lookup("/d/b").node().length());
    }

    @Test
    void inlineBytesBeyondTheLimitAreRefused() {
        OpenReply a = f.create("/d/a", NodeType.FILE);
        byte[] big = new byte[ns.inlineMax()];
        assertNull(sync(appended(a, big.length, big)).get(0).error());
        SyncManyReply.Result over = sync(appended(a, big.length + 1, new byte[] {1})).get(0);
        assertEquals(ErrorCode.INVALID_ARGUMENT, over.error());
        assertTrue(over.message().contains("creel.namenode.inline.max"), over.message());
    }

    @Test
    void anEntryWithoutBytesPublishesBlockDataAsASyncDoes() {
        OpenReply a = f.create("/d/a", NodeType.FILE);
        ns.map(a.node().id(), 0, a.lease());
        assertEquals(List.of(SyncManyReply.Result.applied(100)),
                sync(new SyncManyRequest.Entry(a.node().id(), a.lease(), 100, null)));
        assertEquals(100, f.lookup("/d/a").node().length());
        assertEquals(ErrorCode.INVALID_ARGUMENT, sync(new SyncManyRequest.Entry(a.node().id(), a.lease(), 50, null))
                .get(0).error(), "a committed length never shrinks");
    }
}
