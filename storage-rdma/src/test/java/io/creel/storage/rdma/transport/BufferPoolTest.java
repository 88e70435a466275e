package io.creel.storage.rdma.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.fake.FakeRdmaNetwork;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The registered buffers: registered once, handed out and back, waited for in order, never twice. */
class BufferPoolTest {
    private final FakeRdmaNetwork network = new FakeRdmaNetwork();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final RdmaDevice device;

    BufferPoolTest() throws Exception {
        device = network.open(InetAddress.getByName("10.8.0.1"), RdmaSettings.defaults());
    }

    @AfterEach
    void close() {
        timer.shutdownNow();
        network.close();
    }

    private static <T> T now(CompletableFuture<T> f) {
        assertTrue(f.isDone(), "completed at once");
        return f.join();
    }

    @Test
    void slotsShareOneRegistrationAndDoNotOverlap() throws Exception {
        try (BufferPool pool = new BufferPool(device, 4096, 3, timer, Duration.ofSeconds(30))) {
            BufferPool.Slot a = now(pool.acquire());
            BufferPool.Slot b = now(pool.acquire());
            assertSame(a.memory(), b.memory(), "one registration for all");
            assertTrue(Math.abs(a.dataOffset() - b.dataOffset()) >= 4096 + BufferPool.WORDS);
            assertEquals(0, a.wordOffset(0) % 8);
            assertEquals(a.wordOffset(0) + BufferPool.WORDS, a.dataOffset());
            assertEquals(1, pool.available());

            ByteBuffer src = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
            src.position(1);
            a.copyFrom(src, 1, 3);
            assertEquals(1, src.position(), "the source is not moved");
            ByteBuffer dst = ByteBuffer.allocate(3);
            a.copyTo(dst, 0, 3);
            assertEquals(3, dst.position());
            assertEquals(3, dst.get(0));
            assertEquals(5, dst.get(2));
        }
    }

    @Test
    void whenAllAreHeldTransfersWaitInOrderForTheNextReleased() throws Exception {
        try (BufferPool pool = new BufferPool(device, 4096, 1, timer, Duration.ofSeconds(30))) {
            BufferPool.Slot only = now(pool.acquire());
            CompletableFuture<BufferPool.Slot> first = pool.acquire();
            CompletableFuture<BufferPool.Slot> second = pool.acquire();
            assertFalse(first.isDone());
            assertEquals(2, pool.waiting());
            only.release();
            assertSame(only, now(first), "handed straight to the first waiter");
            assertFalse(second.isDone());
            first.join().release();
            assertSame(only, now(second));
            second.join().release();
            assertEquals(1, pool.available());
            assertThrows(IllegalStateException.class, only::release, "a slot released twice is a bug, said loudly");
        }
    }

    @Test
    void aWaitHasATimeoutAndClosingFailsTheWaiters() throws Exception {
        BufferPool pool = new BufferPool(device, 4096, 1, timer, Duration.ofMillis(50));
        BufferPool.Slot held = now(pool.acquire());
        ExecutionException timedOut = assertThrows(ExecutionException.class, () -> pool.acquire().get(30,
                TimeUnit.SECONDS));
        assertEquals(ErrorCode.TIMEOUT, ((CreelException) timedOut.getCause()).code());
        assertTrue(timedOut.getCause().getMessage().contains("no registered RDMA buffer became free within 50 ms"));

        BufferPool patient = new BufferPool(device, 4096, 1, timer, Duration.ofMinutes(5));
        now(patient.acquire());
        CompletableFuture<BufferPool.Slot> waiting = patient.acquire();
        patient.close();
        ExecutionException closed = assertThrows(ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
        assertEquals(ErrorCode.UNAVAILABLE, ((CreelException) closed.getCause()).code());
        assertTrue(patient.acquire().isCompletedExceptionally());
        held.release();
        pool.close();
        assertNotSame(null, held);
    }

    @Test
    void moreThanTwoGibibytesOfSlotsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new BufferPool(device, 256 << 20, 9, timer,
                Duration.ofSeconds(1)));
    }
}
