package io.creel.common.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InFlightTableTest {
    private record Request(String name, long deadlineNanos) implements InFlightTable.Deadlined {
    }

    @Test
    void aReplyTakesItsRequestOutOnce() {
        InFlightTable<Long, Request> t = new InFlightTable<>();
        Request r = new Request("lookup", 100);
        t.put(1L, r);
        assertTrue(t.contains(1L));
        assertSame(r, t.get(1L), "looking does not take it out");
        assertSame(r, t.remove(1L));
        assertNull(t.remove(1L), "a second reply for the same id finds nothing");
        assertTrue(t.isEmpty());
    }

    @Test
    void removingAGivenEntryLeavesAnotherUnderTheSameKey() {
        InFlightTable<Long, Request> t = new InFlightTable<>();
        Request r = new Request("a", 100);
        t.put(1L, r);
        assertFalse(t.remove(1L, new Request("b", 100)));
        assertTrue(t.remove(1L, r));
        assertEquals(0, t.size());
    }

    @Test
    void theSweepTakesOutExactlyTheRequestsWhoseDeadlineHasCome() {
        InFlightTable<Long, Request> t = new InFlightTable<>();
        t.put(1L, new Request("early", 100));
        t.put(2L, new Request("on time", 200));
        t.put(3L, new Request("late", 300));
        Map<Long, String> expired = new TreeMap<>();
        assertEquals(2, t.sweep(200, (id, r) -> expired.put(id, r.name())));
        assertEquals(Map.of(1L, "early", 2L, "on time"), expired, "a deadline equal to now has come");
        assertEquals(1, t.size());
        assertTrue(t.contains(3L));
    }

    @Test
    void deadlinesCompareAcrossTheWrapOfNanoTime() {
        InFlightTable<Long, Request> t = new InFlightTable<>();
        t.put(1L, new Request("set just before the wrap", Long.MAX_VALUE - 10));
        assertEquals(0, t.sweep(Long.MAX_VALUE - 20, (id, r) -> { }));
        assertEquals(1, t.sweep(Long.MIN_VALUE + 5, (id, r) -> { }), "now is past the deadline, though negative");
    }

    @Test
    void failAllHandsOverEveryRequestAndLeavesNone() {
        InFlightTable<Long, Request> t = new InFlightTable<>();
        for (long i = 0; i < 5; i++) {
            t.put(i, new Request("r" + i, i));
        }
        List<String> failed = new ArrayList<>();
        assertEquals(5, t.failAll(r -> failed.add(r.name())));
        assertEquals(5, failed.size());
        assertTrue(t.isEmpty());
        assertEquals(0, t.failAll(r -> failed.add(r.name())), "nothing is failed twice");
    }

    @Test
    void aReplyATimeoutAndACloseRacingForOneRequestSettleItOnce() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 200; round++) {
                InFlightTable<Long, Request> t = new InFlightTable<>();
                t.put(7L, new Request("contested", 0));
                AtomicInteger settled = new AtomicInteger();
                CountDownLatch go = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(3);
                Runnable reply = () -> {
                    if (t.remove(7L) != null) {
                        settled.incrementAndGet();
                    }
                };
                Runnable timeout = () -> t.sweep(1, (id, r) -> settled.incrementAndGet());
                Runnable close = () -> t.failAll(r -> settled.incrementAndGet());
                for (Runnable r : List.of(reply, timeout, close)) {
                    pool.execute(() -> {
                        try {
                            go.await(5, TimeUnit.SECONDS);
                            r.run();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            done.countDown();
                        }
                    });
                }
                go.countDown();
                assertTrue(done.await(5, TimeUnit.SECONDS), "round " + round + " finished");
                assertEquals(1, settled.get(), "round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
