package io.creel.storage.rdma.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The connection logic every implementation shares, driven by a scripted subclass: no device, no threads. */
class OneSidedConnectionTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.7", 7000);
    private static final RemoteRegion REMOTE = new RemoteRegion(0x10_0000, 1 << 20, 0x99);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    /** Records posts instead of posting; the test completes them by hand. */
    private final class Scripted extends OneSidedConnection {
        final List<Long> posted = Collections.synchronizedList(new ArrayList<>());
        final List<PendingOperation> operations = Collections.synchronizedList(new ArrayList<>());
        RdmaException failNextPost;
        AtomicSupport atomics = AtomicSupport.DEVICE;
        /** Runs inside post, before recording: lets a test make another thread call meanwhile. */
        Runnable duringPost;

        Scripted(int depth) {
            super(5, PEER, RdmaSettings.defaults().withQueueDepth(depth).withOperationTimeout(Duration.ofMillis(100)),
                    clock::get);
        }

        @Override
        protected boolean acceptsLocal(RegisteredMemory local) {
            return local instanceof Local l && l.mine;
        }

        @Override
        public AtomicSupport atomics() {
            return atomics;
        }

        @Override
        protected void post(PendingOperation op, long wrId) throws RdmaException {
            if (failNextPost != null) {
                RdmaException e = failNextPost;
                failNextPost = null;
                throw e;
            }
            Runnable r = duringPost;
            if (r != null) {
                duringPost = null;
                r.run();
            }
            posted.add(wrId);
            operations.add(op);
            events.add("post " + op.operation() + " " + op.length() + (op.fenced() ? " fenced" : ""));
        }

        @Override
        protected void abort() {
            events.add("abort");
        }

        @Override
        protected void onBroken(RdmaException reason) {
            events.add("broken " + reason.kind());
        }

        @Override
        protected void release() {
            events.add("release");
        }

        void complete(int index) {
            completed(posted.get(index), null, null);
        }

        void completeWithError(int index, Kind kind, String text) {
            completed(posted.get(index), kind, text);
        }
    }

    /** Registered memory as far as the connection cares. */
    private static final class Local implements RegisteredMemory {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
        final boolean mine;
        boolean open = true;

        Local(boolean mine) {
            this.mine = mine;
        }

        @Override
        public ByteBuffer buffer() {
            return buffer;
        }

        @Override
        public int length() {
            return buffer.capacity();
        }

        @Override
        public int lkey() {
            return 1;
        }

        @Override
        public int rkey() {
            return 2;
        }

        @Override
        public MemoryAccess access() {
            return MemoryAccess.LOCAL;
        }

        @Override
        public RemoteRegion remote() {
            return new RemoteRegion(0x2000, 4096, 2);
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }

    private final Local local = new Local(true);

    private static RdmaException failure(CompletableFuture<Void> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        RdmaException r = RdmaException.find(e);
        if (r == null) {
            throw new AssertionError("not an RdmaException", e);
        }
        return r;
    }

    @Test
    void postsUpToTheQueueDepthAndQueuesTheRestInOrder() {
        Scripted c = new Scripted(2);
        List<CompletableFuture<Void>> f = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            f.add(c.read(local, 0, REMOTE, 0, i));
        }
        assertEquals(List.of("post READ 1", "post READ 2"), events);
        assertEquals(2, c.inFlight());
        assertEquals(3, c.waiting());

        c.complete(0);
        assertTrue(f.get(0).isDone());
        assertEquals("post READ 3", events.get(2), "a freed slot goes to the oldest waiting operation");
        c.complete(1);
        c.complete(2);
        c.complete(3);
        c.complete(4);
        assertEquals(List.of("post READ 1", "post READ 2", "post READ 3", "post READ 4", "post READ 5"), events);
        f.forEach(x -> assertTrue(x.isDone() && !x.isCompletedExceptionally()));
        assertEquals(0, c.inFlight());
    }

    @Test
    void operationsReachTheDeviceInCallOrderEvenWhenAnotherThreadIsPostingMeanwhile() throws Exception {
        Scripted c = new Scripted(8);
        // While the first operation is being posted, another thread calls twice: its operations must
        // not overtake the first, nor each other.
        c.duringPost = () -> {
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                c.read(local, 0, REMOTE, 0, 2);
                c.read(local, 0, REMOTE, 0, 3);
            });
            try {
                other.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            assertTrue(events.isEmpty(), "nothing is posted while the first post is running: " + events);
        };
        c.read(local, 0, REMOTE, 0, 1);
        assertEquals(List.of("post READ 1", "post READ 2", "post READ 3"), events);
    }

    @Test
    void aFencedReadAndACompareAndSwapArePostedWithWhatTheyAskFor() {
        Scripted c = new Scripted(8);
        c.read(local, 0, REMOTE, 0, 8);
        c.readFenced(local, 8, REMOTE, 64, 100);
        c.compareAndSwap(local, 16, REMOTE, 128, 5, 9, true);
        assertEquals(List.of("post READ 8", "post READ 100 fenced", "post COMPARE_AND_SWAP 8 fenced"), events);
        PendingOperation cas = c.operations.get(2);
        assertEquals(5, cas.compare());
        assertEquals(9, cas.swap());
        assertEquals(REMOTE.address() + 128, cas.remoteAddress());
    }

    @Test
    void aCompareAndSwapNeedsAlignedWordsAndADeviceWithAtomics() {
        Scripted c = new Scripted(8);
        RdmaException unaligned = failure(c.compareAndSwap(local, 0, REMOTE, 4, 1, 2, false));
        assertEquals(Kind.INVALID_ARGUMENT, unaligned.kind());
        assertTrue(unaligned.getMessage().contains("8-byte aligned"), unaligned.getMessage());
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.compareAndSwap(local, 3, REMOTE, 8, 1, 2, false)).kind());
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.compareAndSwap(local, 0, REMOTE, REMOTE.length(), 1, 2,
                false)).kind());
        c.atomics = AtomicSupport.NONE;
        RdmaException none = failure(c.compareAndSwap(local, 0, REMOTE, 8, 1, 2, false));
        assertTrue(none.getMessage().contains("cannot post atomic operations"), none.getMessage());
        assertTrue(events.isEmpty(), "nothing was posted: " + events);
        assertTrue(c.isOpen());
    }

    @Test
    void argumentErrorsFailTheCallAndPostNothing() {
        Scripted c = new Scripted(4);
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.read(local, 0, REMOTE, 0, 0)).kind());
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.read(local, 4000, REMOTE, 0, 100)).kind());
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.read(local, -1, REMOTE, 0, 1)).kind());
        RdmaException outside = failure(c.write(local, 0, REMOTE, REMOTE.length() - 10, 11));
        assertEquals(Kind.INVALID_ARGUMENT, outside.kind());
        assertTrue(outside.getMessage().contains("remote range 1048566+11 is outside RemoteRegion"), outside.getMessage());
        assertTrue(outside.getMessage().contains(PEER.toString()), "names the peer: " + outside.getMessage());
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.read(null, 0, REMOTE, 0, 1)).kind());
        assertEquals(Kind.INVALID_ARGUMENT, failure(c.read(new Local(false), 0, REMOTE, 0, 1)).kind());
        Local closed = new Local(true);
        closed.close();
        assertTrue(failure(c.read(closed, 0, REMOTE, 0, 1)).getMessage().contains("deregistered"));
        assertTrue(events.isEmpty(), "nothing was posted: " + events);
        assertTrue(c.isOpen(), "argument errors do not break the connection");
    }

    @Test
    void anErrorCompletionStopsTheDeviceBeforeAnyOtherOperationFails() {
        Scripted c = new Scripted(2);
        CompletableFuture<Void> bad = c.read(local, 0, REMOTE, 0, 8);
        CompletableFuture<Void> inFlight = c.read(local, 0, REMOTE, 0, 16);
        CompletableFuture<Void> queued = c.write(local, 0, REMOTE, 0, 32);
        inFlight.whenComplete((v, t) -> events.add("in-flight failed"));
        queued.whenComplete((v, t) -> events.add("queued failed"));

        c.completeWithError(0, Kind.REMOTE_ACCESS, "remote access error (IBV_WC_REM_ACCESS_ERR)");

        RdmaException first = failure(bad);
        assertEquals(Kind.REMOTE_ACCESS, first.kind());
        assertEquals("RDMA READ of 8 bytes from " + PEER + " (offset 0 of " + REMOTE
                + ") failed: remote access error (IBV_WC_REM_ACCESS_ERR)", first.getMessage());
        int abort = events.indexOf("abort");
        assertTrue(abort >= 0 && abort < events.indexOf("in-flight failed") && abort < events.indexOf("queued failed"),
                "abort must precede every other failure: " + events);
        assertEquals(Kind.REMOTE_ACCESS, failure(inFlight).kind());
        assertTrue(failure(queued).getMessage().startsWith("RDMA WRITE of 32 bytes to " + PEER));
        assertFalse(c.isOpen());
        assertSame(first, c.failure());
        assertTrue(events.contains("broken REMOTE_ACCESS"));
    }

    @Test
    void afterABreakEveryCallFailsAtOnceWithTheOriginalReason() {
        Scripted c = new Scripted(2);
        c.read(local, 0, REMOTE, 0, 8);
        c.completeWithError(0, Kind.UNREACHABLE, "the peer did not answer (IBV_WC_RETRY_EXC_ERR)");
        events.clear();
        RdmaException later = failure(c.read(local, 0, REMOTE, 0, 8));
        assertEquals(Kind.UNREACHABLE, later.kind());
        assertTrue(later.getMessage().contains("the connection broke earlier"), later.getMessage());
        assertTrue(later.getMessage().contains("IBV_WC_RETRY_EXC_ERR"), later.getMessage());
        assertTrue(events.isEmpty(), "nothing posted after the break: " + events);
    }

    @Test
    void completionsThatArriveAfterTheBreakOrTwiceAreIgnored() {
        Scripted c = new Scripted(2);
        CompletableFuture<Void> a = c.read(local, 0, REMOTE, 0, 8);
        c.read(local, 0, REMOTE, 0, 8);
        c.complete(0);
        c.complete(0);
        assertTrue(a.isDone());
        c.fail(new RdmaException(Kind.UNREACHABLE, PEER, PEER + " disconnected"));
        c.complete(1); // the flushed completion of the second read
        assertEquals(1, events.stream().filter("abort"::equals).count());
    }

    @Test
    void anOperationPastItsDeadlineBreaksTheConnectionWithATimeoutNamingThePeer() {
        Scripted c = new Scripted(1);
        CompletableFuture<Void> posted = c.read(local, 0, REMOTE, 0, 4096);
        CompletableFuture<Void> waiting = c.read(local, 0, REMOTE, 0, 8);
        assertFalse(c.expire(clock.get()), "nothing is late yet");

        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(101));
        assertTrue(c.expire(clock.get()));

        RdmaException e = failure(posted);
        assertEquals(Kind.TIMEOUT, e.kind());
        assertEquals(PEER, e.peer());
        assertTrue(e.getMessage().contains("did not complete within 100 ms"), e.getMessage());
        assertEquals(Kind.TIMEOUT, failure(waiting).kind());
        assertTrue(events.indexOf("abort") >= 0);
        assertFalse(c.expire(clock.get()), "a broken connection has nothing left to expire");
    }

    @Test
    void waitingOperationsHaveDeadlinesToo() {
        Scripted c = new Scripted(1);
        c.read(local, 0, REMOTE, 0, 8);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(60));
        CompletableFuture<Void> waiting = c.read(local, 0, REMOTE, 0, 8);
        c.complete(0); // the slot goes to the waiting one, which has 100 ms from its call
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(60));
        assertFalse(c.expire(clock.get()));
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(41));
        assertTrue(c.expire(clock.get()));
        assertEquals(Kind.TIMEOUT, failure(waiting).kind());
    }

    @Test
    void aFailedPostBreaksTheConnection() {
        Scripted c = new Scripted(2);
        c.failNextPost = new RdmaException(Kind.INTERNAL, PEER, "ibv_post_send failed: Cannot allocate memory");
        CompletableFuture<Void> f = c.write(local, 0, REMOTE, 0, 8);
        assertEquals(Kind.INTERNAL, failure(f).kind());
        assertFalse(c.isOpen());
    }

    @Test
    void closeFailsPendingOperationsAsClosedAndLaterCallsToo() {
        Scripted c = new Scripted(1);
        CompletableFuture<Void> posted = c.read(local, 0, REMOTE, 0, 8);
        CompletableFuture<Void> waiting = c.read(local, 0, REMOTE, 0, 8);
        c.close();
        c.close();
        assertEquals(Kind.CLOSED, failure(posted).kind());
        assertEquals(Kind.CLOSED, failure(waiting).kind());
        assertEquals(Kind.CLOSED, failure(c.read(local, 0, REMOTE, 0, 8)).kind());
        assertEquals(List.of("post READ 8", "abort", "release"), events);
        assertNull(c.failure(), "a plain close is not a failure");
    }

    @Test
    void closeAfterABreakDoesNotAbortTwice() {
        Scripted c = new Scripted(1);
        c.fail(new RdmaException(Kind.UNREACHABLE, PEER, "gone"));
        c.close();
        assertEquals(List.of("abort", "broken UNREACHABLE", "release"), events);
    }
}
