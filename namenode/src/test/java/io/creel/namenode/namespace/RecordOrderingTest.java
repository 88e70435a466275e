package io.creel.namenode.namespace;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.records.RecordStore;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.ManualClock;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Record writes complete when the data plane says so; writes to one slot never overtake each other. */
class RecordOrderingTest {
    /** A store whose writes complete only when the test says so. */
    static final class DeferredStore implements RecordStore {
        record Write(int offset, boolean valid, CompletableFuture<Void> done) {
        }

        final List<Write> issued = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer record) {
            Write w = new Write(offset, record.get(record.position()) == 1, new CompletableFuture<>());
            issued.add(w);
            return w.done;
        }

        synchronized Write get(int i) {
            return issued.get(i);
        }

        synchronized int count() {
            return issued.size();
        }
    }

    private final ManualClock clock = new ManualClock();
    private final ServerRegistry registry = new ServerRegistry(List.of("dram"), 4096, 60_000, clock);
    private final DeferredStore store = new DeferredStore();
    private final BlockAllocator allocator = new BlockAllocator(List.of("dram"), registry, 100, clock);
    private final Namespace ns = new Namespace(allocator, store, 4096,
            100, clock);

    RecordOrderingTest() {
        io.creel.namenode.testing.Servers.grantAll(allocator, registry.register(server("dram", "dram", "h", 1, 100, 4096, 1)));
    }

    @Test
    void aCallReturnsOnlyOnceItsRecordIsWritten() {
        CompletableFuture<OpenReply> create = ns.create(new CreateRequest("/d", NodeType.DIRECTORY, "", "", true), "c");
        assertFalse(create.isDone());
        store.get(0).done().complete(null);
        assertTrue(create.isDone());
    }

    @Test
    void aSlotCountsInTheContainersLengthOnlyOnceItsRecordIsWritten() {
        int perBlock = 4096 / DirectoryRecord.SIZE;
        for (int i = 0; i < perBlock; i++) {
            ns.create(new CreateRequest("/c" + i, NodeType.DIRECTORY, "", "", true), "c");
            store.get(i).done().complete(null);
        }
        assertEquals(4096, ns.lookup("/", false, "c").node().length(), "the first block of records is full");

        // The next record starts a new block: until its write has reached that block, the server
        // holds nothing of this container there, so a listing must not be sent to it.
        CompletableFuture<OpenReply> next = ns.create(new CreateRequest("/c" + perBlock, NodeType.DIRECTORY, "", "",
                true), "c");
        assertFalse(next.isDone());
        assertEquals(4096, ns.lookup("/", false, "c").node().length(), "the slot being written is not readable yet");
        store.get(perBlock).done().complete(null);
        assertTrue(next.isDone());
        assertEquals(4096 + DirectoryRecord.SIZE, ns.lookup("/", false, "c").node().length(),
                "once the create has returned, a listing reaches its record");
    }

    @Test
    void aReusedSlotIsWrittenOnlyAfterItsClearingWriteFinished() {
        ns.create(new CreateRequest("/a", NodeType.DIRECTORY, "", "", true), "c");
        store.get(0).done().complete(null);
        CompletableFuture<NodeInfo> remove = ns.remove("/a", false);
        assertEquals(2, store.count());
        assertFalse(store.get(1).valid(), "the clearing write");
        clock.advance(100);
        CompletableFuture<OpenReply> create = ns.create(new CreateRequest("/b", NodeType.DIRECTORY, "", "", true), "c");
        assertEquals(2, store.count(), "slot 0's new record waits for its clearing write");
        store.get(1).done().complete(null);
        assertTrue(remove.isDone());
        assertEquals(3, store.count());
        assertTrue(store.get(2).valid());
        assertEquals(0, store.get(2).offset());
        assertFalse(create.isDone());
        store.get(2).done().complete(null);
        assertEquals(DirectoryRecord.SIZE, ns.lookup("/", false, "c").node().length());
        assertTrue(create.isDone());
    }
}
