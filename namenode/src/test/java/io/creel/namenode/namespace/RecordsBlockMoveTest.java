package io.creel.namenode.namespace;

import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.records.RecordStore;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import io.creel.namenode.testing.MemoryBlocks;
import io.creel.namenode.testing.Servers;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A container's directory records live in a block of some storage server. When that server dies
 * (the registry stops hearing from it) or cannot be reached by the record write, the namenode moves
 * the block to a live server, rewriting every record from the namespace, and the container keeps
 * taking children; listings see every child before and after.
 */
class RecordsBlockMoveTest {
    /** Two DRAM servers (h1:7001, h3:7003) and a disk server (h1:7002); 60 s heartbeat timeout. */
    private final NamespaceFixture f = new NamespaceFixture(64, 64);
    private final StorageServerInfo dram1;
    private final StorageServerInfo disk;
    private final StorageServerInfo dram3;

    RecordsBlockMoveTest() {
        List<StorageServerInfo> known = f.registry.allServers();
        dram1 = known.get(0);
        disk = known.get(1);
        dram3 = Servers.grantAll(f.allocator, f.registry.register(server("dram", "dram", "h3", 7003, 64,
                NamespaceFixture.BLOCK, 3)));
    }

    /** /d with children a, b, c, b removed again (its slot is cleared); returns /d's records block. */
    private BlockLocation directoryWithChildren() {
        f.create("/d", NodeType.DIRECTORY);
        f.create("/d/a", NodeType.FILE);
        f.create("/d/b", NodeType.DIRECTORY);
        f.create("/d/c", NodeType.FILE);
        Expect.done(f.ns.remove("/d/b", false));
        assertEquals(List.of("a", "c"), f.names("/d"));
        return f.ns.map(f.lookup("/d").node().id(), 0, 0);
    }

    /** Time passes; every server but {@code dead} keeps sending heartbeats. */
    private void declareDead(StorageServerInfo dead) {
        f.clock.advance(61_000);
        for (StorageServerInfo s : List.of(dram1, disk, dram3)) {
            if (s.serverId() != dead.serverId()) {
                assertEquals(ServerRegistry.Beat.KNOWN, f.registry.heartbeat(s.serverId(), s.localToken()));
            }
        }
        assertFalse(f.registry.isLive(dead.serverId()));
    }

    private StorageServerInfo serverOf(BlockLocation b) {
        return f.registry.view(b.server().serverId()).info();
    }

    @Test
    void aCreateAfterTheRecordsServerIsDeclaredDeadSucceedsAndTheListingKeepsEveryChild() {
        BlockLocation old = directoryWithChildren();
        StorageServerInfo dead = serverOf(old);
        f.store.unreachable(dead.address());
        declareDead(dead);

        f.create("/d/e", NodeType.FILE);
        f.create("/d/f", NodeType.DIRECTORY);

        BlockLocation moved = f.ns.map(f.lookup("/d").node().id(), 0, 0);
        assertNotEquals(dead.serverId(), moved.server().serverId(), "the records left the dead server");
        assertEquals("dram", moved.server().storageClass(), "DRAM first, like every allocation");
        assertTrue(Long.compareUnsigned(moved.tag(), old.tag()) > 0, "a new allocation, with a larger tag");
        assertEquals(List.of("a", "c", "e", "f"), f.names("/d"), "old and new children, nothing removed comes back");
        assertEquals(1, f.allocator.counts(dead).pending(), "the old block waits out the reuse delay");
    }

    @Test
    void aRecordWriteThatCannotReachALiveServerMovesTheBlockAndIsTriedOnceMore() {
        BlockLocation old = directoryWithChildren();
        StorageServerInfo unreachable = serverOf(old);
        f.store.unreachable(unreachable.address()); // the registry still hears from it

        f.create("/d/e", NodeType.FILE);

        BlockLocation moved = f.ns.map(f.lookup("/d").node().id(), 0, 0);
        assertNotEquals(unreachable.serverId(), moved.server().serverId());
        assertEquals("dram", moved.server().storageClass());
        assertEquals(List.of("a", "c", "e"), f.names("/d"));
        // A removal's record clear goes to the new block as well.
        Expect.done(f.ns.remove("/d/a", false));
        assertEquals(List.of("c", "e"), f.names("/d"));
    }

    @Test
    void aRenameUndoneAfterItsRecordsBlockMovedLeavesTheNodeListedUnderItsOldName() {
        BlockLocation old = directoryWithChildren();
        StorageServerInfo unreachable = serverOf(old);
        f.store.unreachable(unreachable.address()); // the rename's record write moves the block to dram3
        f.store.failOnceAfter(dram3.address(), 1); // the copy lands there; the rename's own write then fails

        Expect.error(ErrorCode.UNAVAILABLE, () -> f.ns.move("/d/a", "/d/x"), "/d/x");

        BlockLocation moved = f.ns.map(f.lookup("/d").node().id(), 0, 0);
        assertEquals(dram3.serverId(), moved.server().serverId(), "the block moved, rewritten while a was x");
        assertEquals(List.of("a", "c"), f.names("/d"), "a is back, and listed: its old record is written again");
    }

    @Test
    void aRemovalUnderADeadServerAlsoMovesTheRecordsSoTheListingStaysReadable() {
        BlockLocation old = directoryWithChildren();
        StorageServerInfo dead = serverOf(old);
        f.store.unreachable(dead.address());
        declareDead(dead);

        Expect.done(f.ns.remove("/d/c", false));

        assertNotEquals(dead.serverId(), f.ns.map(f.lookup("/d").node().id(), 0, 0).server().serverId());
        assertEquals(List.of("a"), f.names("/d"));
    }

    @Test
    void withNoLiveServerLeftTheCreateFailsNamingTheContainerAndChangesNothing() {
        NamespaceFixture one = new NamespaceFixture(64, 0);
        one.create("/d", NodeType.DIRECTORY);
        one.create("/d/a", NodeType.DIRECTORY);
        StorageServerInfo only = one.registry.allServers().get(0);
        one.store.unreachable(only.address());
        one.clock.advance(61_000);

        Expect.error(ErrorCode.OUT_OF_SPACE, () -> one.createAsync("/d/b", NodeType.DIRECTORY), "/d/b", "directory records of /d",
                only.address(), "which is dead", "no free block");
        Expect.error(ErrorCode.NOT_FOUND, () -> one.lookup("/d/b"));
        assertEquals(only.serverId(), one.ns.map(one.lookup("/d").node().id(), 0, 0).server().serverId(),
                "the records block stayed where it was");
    }

    @Test
    void withNoOtherServerAnUnreachableRecordsServerFailsTheCreateAndUndoesIt() {
        NamespaceFixture one = new NamespaceFixture(64, 0);
        one.create("/d", NodeType.DIRECTORY);
        one.create("/d/a", NodeType.DIRECTORY);
        StorageServerInfo only = one.registry.allServers().get(0);
        one.store.unreachable(only.address());

        Expect.error(ErrorCode.OUT_OF_SPACE, () -> one.createAsync("/d/b", NodeType.DIRECTORY), "/d/b",
                "could not be written, so the change was undone", "directory records of /d", only.address(),
                "could not be reached", "no free block");
        Expect.error(ErrorCode.NOT_FOUND, () -> one.lookup("/d/b"));
    }

    @Test
    void readersAreGivenTheOldBlockUntilTheNewOneHoldsEveryRecord() {
        HeldStore held = new HeldStore();
        NamespaceFixture g = new NamespaceFixture(64, 64); // its servers and allocator, our store
        Namespace ns = new Namespace(g.allocator, held, NamespaceFixture.BLOCK, NamespaceFixture.DELAY, g.clock);
        Expect.done(ns.create(new CreateRequest("/d", NodeType.DIRECTORY, "", "", true), NamespaceFixture.CONN));
        Expect.done(ns.create(new CreateRequest("/d/a", NodeType.DIRECTORY, "", "", true), NamespaceFixture.CONN));
        long dir = ns.lookup("/d", false, NamespaceFixture.CONN).node().id();
        BlockLocation old = ns.map(dir, 0, 0);
        held.unreachable = old.server().address();
        held.holding = true;

        CompletableFuture<OpenReply> create = ns.create(new CreateRequest("/d/b", NodeType.DIRECTORY, "", "", true),
                NamespaceFixture.CONN);
        assertFalse(create.isDone(), "the create waits for the records to move");
        assertEquals(1, held.pending.size(), "the new block is being written with the old one's records");
        assertEquals(old, ns.map(dir, 0, 0), "readers still get the old block (its server fails them clearly)");

        held.release();
        OpenReply b = Expect.done(create);
        BlockLocation moved = ns.map(dir, 0, 0);
        assertNotEquals(old.server().serverId(), moved.server().serverId(), "after the copy, the new block");
        assertEquals(NodeType.DIRECTORY, b.node().type());
        assertEquals(List.of("a", "b"), List.of(held.blocks.record(moved, 0).name(), held.blocks.record(moved, 1).name()));
    }

    /** A record store over memory blocks that fails writes to one server and can hold writes back. */
    private static final class HeldStore implements RecordStore {
        final MemoryBlocks blocks = new MemoryBlocks();
        final List<Runnable> pending = new ArrayList<>();
        volatile String unreachable = "";
        volatile boolean holding;

        @Override
        public synchronized CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer record) {
            if (block.server().address().equals(unreachable)) {
                return CompletableFuture.failedFuture(new io.creel.common.error.CreelException(ErrorCode.UNAVAILABLE,
                        "storage server " + unreachable + " cannot be reached (on purpose)"));
            }
            if (!holding) {
                return blocks.write(block, offset, record);
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            ByteBuffer copy = ByteBuffer.allocate(record.remaining()).put(record.duplicate()).flip();
            pending.add(() -> blocks.write(block, offset, copy).whenComplete((v, e) -> {
                if (e == null) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(e);
                }
            }));
            return done;
        }

        /** Lets every held write (and later ones) through. */
        void release() {
            List<Runnable> now;
            synchronized (this) {
                holding = false;
                now = List.copyOf(pending);
                pending.clear();
            }
            now.forEach(Runnable::run);
        }
    }
}
