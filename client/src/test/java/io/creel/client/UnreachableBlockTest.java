package io.creel.client;

import static io.creel.client.TestData.bytes;
import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A write into a block whose server cannot be reached moves the block (the namenode allocates it
 * elsewhere) and carries on; it fails only when the block cannot move because some of it was
 * written there already.
 */
class UnreachableBlockTest {
    private static final int B = FakeCluster.BLOCK;

    @Test
    void piecesThatCannotReachTheirBlocksServerFollowTheBlockToItsNewPlaceTogether() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            BlockLocation first = c.blockCache().peek(new io.creel.client.block.BlockKey(0, f.info().id(), 0));
            cluster.storage.unreachable.add(first.blockNumber());
            cluster.storage.delayMillis = 20; // the pieces are in flight together
            byte[] data = bytes(2 * B + B / 2, 1);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                int from = i * data.length / 10;
                int to = (i + 1) * data.length / 10;
                writes.add(f.writer().write(ByteBuffer.wrap(data, from, to - from)));
            }
            for (CompletableFuture<Void> w : writes) {
                get(w);
            }
            assertEquals(data.length, get(f.writer().close()).length());
            assertEquals(1, cluster.namenode().moves.get(), "every piece of block 0 shared one move");

            CreelNode back = get(c.lookup("/f"));
            byte[] read = new byte[data.length];
            assertEquals(data.length, (int) get(back.read(0, ByteBuffer.wrap(read))));
            assertArrayEquals(data, read);
            List<BlockLocation> now = get(c.blockLocations(back, 0, B));
            assertNotEquals(first.blockNumber(), now.get(0).blockNumber(), "block 0 lives elsewhere now");
        }
    }

    @Test
    void aMoveWaitsForTheTransfersInFlightAndAnyThatLandsKeepsTheBlockWhereItIs() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            CountDownLatch slowOneMayLand = new CountDownLatch(1);
            AtomicInteger refused = new AtomicInteger();
            cluster.storage.writeGate = (block, offset) -> {
                if (offset == 0) {
                    return slowOneMayLand.await(20, TimeUnit.SECONDS); // in flight, then lands
                }
                refused.incrementAndGet();
                return false; // the server cannot be reached for the other piece
            };
            CompletableFuture<Void> slow = f.writer().write(ByteBuffer.wrap(bytes(100, 7)));
            CompletableFuture<Void> failing = f.writer().write(ByteBuffer.wrap(bytes(100, 8)));
            waitUntil(() -> refused.get() == 1, "the second piece to be refused");
            assertTrue(!failing.isDone(), "its move waits for the piece still in flight at the old place");
            slowOneMayLand.countDown();

            get(slow);
            CreelException e = failure(failing);
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.toString());
            assertEquals(0, cluster.namenode().moveRequests.get(), "bytes landed there: the block stays");
            assertEquals(ErrorCode.UNAVAILABLE, failure(f.writer().close()).code());
        }
    }

    @Test
    void aPieceThatLandsAtTheOldPlaceAfterTheMoveWasDecidedIsWrittenAgainAtTheNewOne() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            AtomicBoolean first = new AtomicBoolean(true);
            cluster.storage.writeGate = (block, offset) -> !(offset == 0 && first.getAndSet(false));
            CountDownLatch moveAnswered = new CountDownLatch(1);
            cluster.namenode().moveGate = moveAnswered;

            byte[] a = bytes(100, 9);
            byte[] b = bytes(100, 10);
            CompletableFuture<Void> refusedFirst = f.writer().write(ByteBuffer.wrap(a));
            waitUntil(() -> cluster.namenode().moveRequests.get() == 1, "the move to be asked for");
            // Still at the old place in the cache: this piece lands there, after the move was decided.
            CompletableFuture<Void> late = f.writer().write(ByteBuffer.wrap(b));
            waitUntil(() -> cluster.storage.writes.size() == 1, "the late piece to land at the old place");
            moveAnswered.countDown();

            get(refusedFirst);
            get(late);
            assertEquals(200, get(f.writer().close()).length());
            byte[] back = new byte[200];
            assertEquals(200, (int) get(get(c.lookup("/f")).read(0, ByteBuffer.wrap(back))));
            byte[] both = new byte[200];
            System.arraycopy(a, 0, both, 0, 100);
            System.arraycopy(b, 0, both, 100, 100);
            assertArrayEquals(both, back, "both pieces are in the block where it moved");
            assertEquals(1, cluster.namenode().moves.get());
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aBlockWithBytesAlreadyWrittenAtItsPlaceCannotMoveAndTheWriterFails() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            get(f.writer().write(ByteBuffer.wrap(bytes(B / 2, 2))));
            BlockLocation first = c.blockCache().peek(new io.creel.client.block.BlockKey(0, f.info().id(), 0));
            cluster.storage.unreachable.add(first.blockNumber());

            CreelException e = failure(f.writer().write(ByteBuffer.wrap(bytes(B / 4, 3))));
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.toString());
            assertTrue(e.getMessage().contains("cannot be reached"), e.getMessage());
            assertEquals(0, cluster.namenode().moves.get(), "half of the block is there: it stays");
            assertEquals(ErrorCode.UNAVAILABLE, failure(f.writer().close()).code());
            assertEquals(0, get(c.lookup("/f")).length());
        }
    }

    @Test
    void aPieceFollowsItsBlockAFewTimesAtMostThenFailsWithTheTransferError() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            get(f.writer().write(ByteBuffer.wrap(bytes(100, 4))));
            // No block allocated from now on can be reached: every move lands on another dead server.
            for (long b = cluster.storage.usedBlocks(); b < cluster.storage.usedBlocks() + 100; b++) {
                cluster.storage.unreachable.add(b);
            }
            CreelException e = failure(f.writer().write(ByteBuffer.wrap(bytes(B, 5))));
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.toString());
            assertTrue(e.getMessage().contains("writing block 1"), e.getMessage());
            assertEquals(io.creel.storage.transport.BlockTransfers.MAX_MOVES, cluster.namenode().moves.get(),
                    "block 1 moved as often as a piece follows it, then the write gave up");
            assertEquals(ErrorCode.UNAVAILABLE, failure(f.writer().close()).code());
        }
    }
}
