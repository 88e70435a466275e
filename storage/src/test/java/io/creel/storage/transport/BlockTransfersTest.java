package io.creel.storage.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.testkit.FakeServers;
import io.creel.storage.testkit.FakeTransportProvider;
import io.creel.storage.transport.TransportSelector.Direction;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one rule for moving a block piece and for what happens when that fails: fall back to a
 * costlier transport after a transport's own failure, relocate a stale read once, never touch the
 * caller's buffer position or limit, and word every failure once.
 */
class BlockTransfersTest {
    private static final byte[] DATA = pattern(FakeServers.BLOCK_SIZE);

    private final FakeServers servers = new FakeServers();
    private final StorageServerInfo a = FakeServers.server("10.0.0.1", 7001, 11);
    private final StorageServerInfo b = FakeServers.server("10.0.0.2", 7001, 22);
    /** Block 3 of server a, allocated with tag 100, holding {@link #DATA}. */
    private final BlockLocation block = FakeServers.at(a, 3, 100);
    private final FakeTransportProvider mapped = new FakeTransportProvider("mapped", 10, servers);
    private final FakeTransportProvider tcp = new FakeTransportProvider("tcp", 100, servers);
    private final BlockTransfers transfers = new BlockTransfers(new TransportSelector(List.of(mapped, tcp),
            new TransportContext(CreelConf.defaults(), null)));

    BlockTransfersTest() {
        servers.put(block, 0, DATA);
    }

    @AfterEach
    void close() {
        transfers.close();
    }

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 7 + (i >> 8) + 1);
        }
        return b;
    }

    private CompletableFuture<Void> read(BlockLocator at, int offset, ByteBuffer dst) {
        return transfers.read("/f", 0, at, offset, dst);
    }

    private CompletableFuture<Void> write(BlockLocator at, int offset, ByteBuffer src) {
        return transfers.write("/f", 0, at, offset, src);
    }

    private byte[] readBack(BlockLocation at, int offset, int length) {
        ByteBuffer dst = ByteBuffer.allocate(length);
        Await.result(read(BlockLocator.at(at), offset, dst));
        return dst.array();
    }

    private static byte[] slice(byte[] b, int from, int length) {
        return Arrays.copyOfRange(b, from, from + length);
    }

    // ---- falling back ----

    @Test
    void aFailedCheapTransportIsTriedOnceThenTheCostlierOneIsKept() {
        mapped.failingWith(ErrorCode.UNAVAILABLE);
        assertArrayEquals(slice(DATA, 100, 50), readBack(block, 100, 50));
        assertEquals(1, mapped.reads());
        assertEquals(1, tcp.reads());
        assertEquals("tcp", transfers.selector().transportName(a, Direction.READ));

        mapped.failingWith(null);
        assertArrayEquals(slice(DATA, 0, 10), readBack(block, 0, 10));
        assertEquals(1, mapped.reads(), "the choice sticks even once the cheap transport would work again");
        assertEquals(2, tcp.reads());
    }

    @ParameterizedTest
    @EnumSource(value = ErrorCode.class, names = {"UNAVAILABLE", "TIMEOUT", "PROTOCOL", "INTERNAL", "UNSUPPORTED"})
    void aReadFailureATransportCouldCauseFallsBack(ErrorCode code) {
        mapped.failingWith(code);
        assertArrayEquals(slice(DATA, 0, 64), readBack(block, 0, 64));
        assertEquals(1, mapped.reads());
        assertEquals(1, tcp.reads());
    }

    @ParameterizedTest
    @EnumSource(value = ErrorCode.class, names = {"UNAVAILABLE", "TIMEOUT", "PROTOCOL", "INTERNAL", "UNSUPPORTED"})
    void aWriteFailureATransportCouldCauseFallsBack(ErrorCode code) {
        mapped.failingWith(code);
        Await.result(write(BlockLocator.at(block), 8, ByteBuffer.wrap(new byte[] {4, 5, 6})));
        assertArrayEquals(new byte[] {4, 5, 6}, servers.get(block, 8, 3));
        assertEquals(1, mapped.writes());
        assertEquals(1, tcp.writes());
        assertEquals("tcp", transfers.selector().transportName(a, Direction.WRITE));
    }

    @ParameterizedTest
    @EnumSource(value = ErrorCode.class, names = {"STALE_BLOCK", "NOT_FOUND", "INVALID_ARGUMENT"})
    void aDataErrorNeverFallsBack(ErrorCode code) {
        mapped.failingWith(code);
        assertEquals(code, Await.failure(read(BlockLocator.at(block), 0, ByteBuffer.allocate(8))).code());
        assertEquals(code, Await.failure(write(BlockLocator.at(block), 0, ByteBuffer.allocate(8))).code());
        assertEquals(1, mapped.reads());
        assertEquals(1, mapped.writes());
        assertEquals(0, tcp.opens(), "every transport would fail the same way");
        assertEquals("mapped", transfers.selector().transportName(a, Direction.READ), "and the choice stays");
    }

    @Test
    void aRangeOutsideTheBlockFailsWithoutFallingBack() {
        CreelException e = Await.failure(read(BlockLocator.at(block), FakeServers.BLOCK_SIZE - 4, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertEquals(0, tcp.opens());
    }

    @Test
    void whenEveryTransportFailsEachIsTriedOnceAndTheLastFailureIsReported() {
        mapped.failingWith(ErrorCode.UNAVAILABLE);
        tcp.failingWith(ErrorCode.TIMEOUT);
        CreelException e = Await.failure(read(BlockLocator.at(block), 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.TIMEOUT, e.code());
        assertTrue(e.getMessage().contains("via tcp"), e.getMessage());
        assertEquals(1, mapped.reads());
        assertEquals(1, tcp.reads());
    }

    @Test
    void aWriteFallbackSkipsReadOnlyTransports() {
        FakeTransportProvider localFile = new FakeTransportProvider("local-file", 20, servers).readOnly();
        try (BlockTransfers t = new BlockTransfers(new TransportSelector(List.of(mapped, localFile, tcp),
                new TransportContext(CreelConf.defaults(), null)))) {
            mapped.failingWith(ErrorCode.UNAVAILABLE);
            Await.result(t.write("/f", 0, BlockLocator.at(block), 0, ByteBuffer.wrap(new byte[] {1})));
            assertEquals(0, localFile.writes());
            assertEquals(1, tcp.writes());
            assertEquals("tcp", t.selector().transportName(a, Direction.WRITE));
        }
    }

    @Test
    void aTransportThatThrowsInsteadOfFailingFallsBackLikeAnyFailure() {
        mapped.failingWith(ErrorCode.UNAVAILABLE).throwingInsteadOfFailing();
        assertArrayEquals(slice(DATA, 5, 5), readBack(block, 5, 5));
        assertEquals(1, tcp.reads());
    }

    @Test
    void concurrentFailuresOfOneTransportMoveOnOnce() {
        mapped.failingWith(ErrorCode.UNAVAILABLE).holding();
        ByteBuffer first = ByteBuffer.allocate(16);
        ByteBuffer second = ByteBuffer.allocate(16);
        CompletableFuture<Void> one = read(BlockLocator.at(block), 0, first);
        CompletableFuture<Void> two = read(BlockLocator.at(block), 16, second);
        assertEquals(2, mapped.heldCount(), "both transfers are under way on the cheap transport");
        mapped.release();
        Await.result(one);
        Await.result(two);
        assertArrayEquals(slice(DATA, 0, 16), first.array());
        assertArrayEquals(slice(DATA, 16, 16), second.array());
        assertEquals(1, tcp.opens());
        assertEquals(2, tcp.reads());
        readBack(block, 0, 1);
        assertEquals(2, mapped.reads(), "after both failed the cheap transport is not asked again");
    }

    // ---- stale locations ----

    @Test
    void aStaleReadIsRetriedOnceAtTheFreshLocation() {
        BlockLocation fresh = FakeServers.at(a, 5, 300);
        servers.put(fresh, 0, DATA);
        servers.reallocate(block, 200); // block 3 now belongs to other data
        ScriptedLocator locator = new ScriptedLocator(block, fresh);
        ByteBuffer dst = ByteBuffer.allocate(32);
        Await.result(read(locator, 64, dst));
        assertArrayEquals(slice(DATA, 64, 32), dst.array());
        assertEquals(List.of(block), locator.relocations());
        assertEquals(2, mapped.reads());
        assertEquals(0, tcp.opens(), "a stale location is not the transport's fault");
    }

    @Test
    void aStaleReadIsRelocatedAtMostOnce() {
        BlockLocation alsoStale = FakeServers.at(a, 6, 300);
        BlockLocation good = FakeServers.at(a, 7, 400);
        servers.put(good, 0, DATA);
        servers.reallocate(block, 200);
        servers.reallocate(alsoStale, 301);
        ScriptedLocator locator = new ScriptedLocator(block, alsoStale, good);
        CreelException e = Await.failure(read(locator, 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.STALE_BLOCK, e.code());
        assertEquals(List.of(block), locator.relocations());
        assertTrue(e.getMessage().contains("(block 6 of storage server"), "names the fresh location: " + e.getMessage());
        assertEquals(0, tcp.opens());
    }

    @Test
    void aStaleReadWithNothingFresherFailsStale() {
        servers.reallocate(block, 200);
        ScriptedLocator locator = new ScriptedLocator(block);
        assertEquals(ErrorCode.STALE_BLOCK, Await.failure(read(locator, 0, ByteBuffer.allocate(8))).code());
        assertEquals(List.of(block), locator.relocations(), "asked once, had nothing");
        assertEquals(1, mapped.reads());
        assertEquals(0, tcp.opens());
    }

    @Test
    void aStaleWriteIsNeverRelocated() {
        BlockLocation fresh = FakeServers.at(a, 5, 300);
        servers.reallocate(block, 200);
        ScriptedLocator locator = new ScriptedLocator(block, fresh);
        CreelException e = Await.failure(write(locator, 0, ByteBuffer.wrap(new byte[] {1, 2})));
        assertEquals(ErrorCode.STALE_BLOCK, e.code());
        assertEquals(List.of(), locator.relocations(), "the writer's allocation was superseded: nowhere else is its");
        assertArrayEquals(new byte[2], servers.get(fresh, 0, 2), "the fresh block is untouched");
        assertEquals(0, tcp.opens());
    }

    @Test
    void aRelocatedReadMayMoveToAnotherServer() {
        BlockLocation onB = FakeServers.at(b, 0, 300);
        servers.put(onB, 0, DATA);
        servers.reallocate(block, 200);
        ByteBuffer dst = ByteBuffer.allocate(8);
        Await.result(read(new ScriptedLocator(block, onB), 0, dst));
        assertArrayEquals(slice(DATA, 0, 8), dst.array());
        assertEquals(List.of(a, b), mapped.askedFor());
    }

    @Test
    void aFailedRelocationIsReportedAsTheLookupFailure() {
        servers.reallocate(block, 200);
        BlockLocator removed = new BlockLocator() {
            @Override
            public CompletableFuture<BlockLocation> locate() {
                return CompletableFuture.completedFuture(block);
            }

            @Override
            public CompletableFuture<BlockLocation> relocate(BlockLocation stale) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.NOT_FOUND, "/f: node was removed"));
            }
        };
        CreelException e = Await.failure(read(removed, 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals("/f: reading block 0 failed: node was removed", e.getMessage());
    }

    // ---- a misbehaving locator ----

    @Test
    void aLocatorThatThrowsFailsTheTransfersFutureInsteadOfTheCall() {
        BlockLocator broken = () -> {
            throw new IllegalStateException("location cache is closed");
        };
        CompletableFuture<Void> f = read(broken, 0, ByteBuffer.allocate(8));
        CreelException e = Await.failure(f);
        assertEquals(ErrorCode.INTERNAL, e.code());
        assertTrue(e.getMessage().startsWith("/f: reading block 0 failed: ")
                && e.getMessage().contains("location cache is closed"), e.getMessage());
        assertEquals(0, mapped.opens());
    }

    @Test
    void aLocatorThatThrowsWhenAskedToRelocateFailsTheTransferRatherThanLeavingItPending() {
        servers.reallocate(block, 200);
        BlockLocator broken = new BlockLocator() {
            @Override
            public CompletableFuture<BlockLocation> locate() {
                return CompletableFuture.completedFuture(block);
            }

            @Override
            public CompletableFuture<BlockLocation> relocate(BlockLocation stale) {
                throw new IllegalStateException("location cache is closed");
            }
        };
        CreelException e = Await.failure(read(broken, 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.INTERNAL, e.code());
        assertTrue(e.getMessage().contains("location cache is closed"), e.getMessage());
    }

    @Test
    void aLocatorThatAnswersWithNoLocationFailsTheTransferRatherThanLeavingItPending() {
        CreelException e = Await.failure(read(() -> CompletableFuture.completedFuture(null), 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.INTERNAL, e.code());
        assertTrue(e.getMessage().startsWith("/f: reading block 0 failed: "), e.getMessage());
    }

    @Test
    void aLocatorThatThrowsWhenToldTheTransferStartedDoesNotStopTheTransfer() {
        BlockLocator noisy = new BlockLocator() {
            @Override
            public CompletableFuture<BlockLocation> locate() {
                return CompletableFuture.completedFuture(block);
            }

            @Override
            public void transferStarted(BlockLocation at) {
                throw new IllegalStateException("prefetch queue is full");
            }
        };
        ByteBuffer dst = ByteBuffer.allocate(8);
        Await.result(read(noisy, 0, dst));
        assertArrayEquals(slice(DATA, 0, 8), dst.array(), "the hint is the locator's business; the bytes still arrive");
    }

    // ---- the caller's buffer ----

    @Test
    void aReadFillsOnlyTheCallersWindowAndLeavesItsPositionAndLimit() {
        ByteBuffer dst = ByteBuffer.allocate(64);
        Arrays.fill(dst.array(), (byte) 0x55);
        dst.position(10).limit(40);
        Await.result(read(BlockLocator.at(block), 100, dst));
        assertEquals(10, dst.position());
        assertEquals(40, dst.limit());
        byte[] expected = new byte[64];
        Arrays.fill(expected, (byte) 0x55);
        System.arraycopy(DATA, 100, expected, 10, 30);
        assertArrayEquals(expected, dst.array(), "the window holds the bytes, the rest is untouched");
    }

    @Test
    void aWriteTakesTheCallersWindowAndLeavesItsPositionAndLimit() {
        ByteBuffer src = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 64; i++) {
            src.put(i, (byte) (200 + i));
        }
        src.position(4).limit(12);
        Await.result(write(BlockLocator.at(block), 1000, src));
        assertEquals(4, src.position());
        assertEquals(12, src.limit());
        assertArrayEquals(new byte[] {(byte) 204, (byte) 205, (byte) 206, (byte) 207, (byte) 208, (byte) 209,
                (byte) 210, (byte) 211}, servers.get(block, 1000, 8));
        assertArrayEquals(slice(DATA, 1008, 1), servers.get(block, 1008, 1), "nothing beyond the window");
    }

    @Test
    void aFailedTransferLeavesTheCallersPositionAndLimitToo() {
        mapped.failingWith(ErrorCode.UNAVAILABLE).scribblingBeforeFailing();
        tcp.failingWith(ErrorCode.UNAVAILABLE).scribblingBeforeFailing();
        ByteBuffer dst = ByteBuffer.allocate(32).position(8);
        Await.failure(read(BlockLocator.at(block), 0, dst));
        assertEquals(8, dst.position());
        assertEquals(32, dst.limit());
        ByteBuffer src = ByteBuffer.allocate(32).limit(24);
        Await.failure(write(BlockLocator.at(block), 0, src));
        assertEquals(0, src.position());
        assertEquals(24, src.limit());
    }

    @Test
    void junkAFailedReadAttemptLeftInItsSliceIsOverwrittenByTheNextAttempt() {
        mapped.failingWith(ErrorCode.INTERNAL).scribblingBeforeFailing();
        ByteBuffer dst = ByteBuffer.allocate(40).position(4);
        Await.result(read(BlockLocator.at(block), 200, dst));
        assertArrayEquals(slice(DATA, 200, 36), slice(dst.array(), 4, 36));
        assertArrayEquals(new byte[4], slice(dst.array(), 0, 4));
    }

    @Test
    void aFailedWriteAttemptThatConsumedPartOfItsSliceDoesNotShortenTheNextAttempt() {
        mapped.failingWith(ErrorCode.INTERNAL).scribblingBeforeFailing();
        byte[] bytes = pattern(100);
        Await.result(write(BlockLocator.at(block), 300, ByteBuffer.wrap(bytes)));
        assertArrayEquals(bytes, servers.get(block, 300, 100), "every byte went out on the second attempt");
    }

    // ---- wording ----

    @Test
    void aFailureIsWrappedOnceNamingTheDataBlockServerAndTransport() {
        mapped.failingWith(ErrorCode.INTERNAL);
        tcp.failingWith(ErrorCode.INTERNAL);
        CreelException e = Await.failure(transfers.read("/jobs/shuffle_3.data", 7, BlockLocator.at(block), 0,
                ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.INTERNAL, e.code());
        assertEquals("/jobs/shuffle_3.data: reading block 7 (block 3 of storage server 10.0.0.1:7001 via tcp) failed: "
                + "tcp refused the transfer (told to, with INTERNAL)", e.getMessage());
        assertTrue(e.getCause() instanceof CreelException cause && cause.getCause() == null,
                "the transport's own failure is the one cause");

        CreelException w = Await.failure(transfers.write("/jobs/shuffle_3.data", 7, BlockLocator.at(block), 0,
                ByteBuffer.allocate(8)));
        assertEquals("/jobs/shuffle_3.data: writing block 7 (block 3 of storage server 10.0.0.1:7001 via tcp) failed: "
                + "tcp refused the transfer (told to, with INTERNAL)", w.getMessage());
    }

    @Test
    void aFailedLookupIsWrappedNamingTheDataOnceAndNoTransportIsOpened() {
        CreelException cause = new CreelException(ErrorCode.NOT_FOUND, "/f: no such node");
        CreelException e = Await.failure(read(() -> CompletableFuture.failedFuture(cause), 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals("/f: reading block 0 failed: no such node", e.getMessage(), "the data is named once");
        assertSame(cause, e.getCause());
        assertEquals(0, mapped.opens());
    }

    @Test
    void noTransportIsAFailureNamingTheDataServerAndProvidersTried() {
        mapped.declining();
        tcp.declining();
        CreelException e = Await.failure(read(BlockLocator.at(block), 0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertEquals("/f: reading block 0 (block 3 of storage server 10.0.0.1:7001) failed: no transport can read "
                + "from storage server 10.0.0.1:7001 (tier fake); providers tried: [mapped, tcp]", e.getMessage());
    }

    // ---- overlapping the next lookup ----

    @Test
    void transferStartedIsCalledOnceWhileTheTransferIsUnderWay() {
        mapped.holding();
        ScriptedLocator locator = new ScriptedLocator(block);
        CompletableFuture<Void> f = read(locator, 0, ByteBuffer.allocate(8));
        assertFalse(f.isDone());
        assertEquals(List.of(block), locator.started(), "told before the bytes arrive, so the next lookup overlaps");
        mapped.release();
        Await.result(f);
        assertEquals(List.of(block), locator.started());
        assertEquals(1, locator.locates());
    }

    @Test
    void aTransferThatFallsBackIsReportedStartedOnce() {
        mapped.holding().failingWith(ErrorCode.UNAVAILABLE);
        ScriptedLocator locator = new ScriptedLocator(block);
        CompletableFuture<Void> f = read(locator, 0, ByteBuffer.allocate(8));
        mapped.release();
        Await.result(f);
        assertEquals(1, tcp.reads());
        assertEquals(List.of(block), locator.started());
    }

    @Test
    void aTransferRefusedAtOnceIsNotReportedStarted() {
        ScriptedLocator locator = new ScriptedLocator(block);
        Await.failure(read(locator, FakeServers.BLOCK_SIZE, ByteBuffer.allocate(1)));
        assertEquals(List.of(), locator.started());
    }

    @Test
    void aRelocatedReadIsReportedStartedOnceAtTheFreshLocation() {
        BlockLocation fresh = FakeServers.at(a, 5, 300);
        servers.put(fresh, 0, DATA);
        servers.reallocate(block, 200);
        ScriptedLocator locator = new ScriptedLocator(block, fresh);
        Await.result(read(locator, 0, ByteBuffer.allocate(8)));
        assertEquals(List.of(fresh), locator.started());
    }

    @Test
    void closeClosesTheTransportsOpenedForTransfers() {
        readBack(block, 0, 1);
        Await.result(transfers.write("/f", 0, BlockLocator.at(FakeServers.at(b, 0, 1)), 0, ByteBuffer.allocate(1)));
        transfers.close();
        assertEquals(2, mapped.closes());
        assertEquals(0, tcp.closes(), "never opened");
    }
}
