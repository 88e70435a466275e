package io.creel.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The release of mappings waits for the operations inside them, and happens exactly once. */
class MappingUsersTest {
    private final AtomicInteger releases = new AtomicInteger();
    private final MappingUsers users = new MappingUsers(releases::incrementAndGet);

    @Test
    void aCloseWithNobodyInsideReleasesAtOnce() {
        users.close();
        assertEquals(1, releases.get());
        assertTrue(users.isClosed());
    }

    @Test
    void aCloseWhileOperationsRunReleasesWhenTheLastLeaves() {
        assertTrue(users.enter());
        assertTrue(users.enter());
        users.close();
        assertEquals(0, releases.get(), "two operations are still copying");
        users.exit();
        assertEquals(0, releases.get(), "one operation is still copying");
        users.exit();
        assertEquals(1, releases.get(), "the last to leave released");
    }

    @Test
    void noOperationEntersAfterTheClose() {
        assertTrue(users.enter());
        users.close();
        assertFalse(users.enter(), "refused: the caller must fail without touching the mappings");
        users.exit();
        assertFalse(users.enter());
        assertEquals(1, releases.get());
    }

    @Test
    void closingTwiceReleasesOnce() {
        users.close();
        users.close();
        assertEquals(1, releases.get());
    }

    @Test
    void anExitWithoutAnEnterIsABug() {
        assertThrows(IllegalStateException.class, users::exit);
    }

    @Test
    void underRacingOperationsTheReleaseComesOnceAndNeverUnderAnOperation() throws Exception {
        for (int round = 0; round < 200; round++) {
            AtomicBoolean released = new AtomicBoolean();
            AtomicInteger violations = new AtomicInteger();
            AtomicInteger count = new AtomicInteger();
            MappingUsers racing = new MappingUsers(() -> {
                count.incrementAndGet();
                released.set(true);
            });
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Thread th = new Thread(() -> {
                    try {
                        go.await(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    while (racing.enter()) {
                        if (released.get()) {
                            violations.incrementAndGet(); // would be a copy from unmapped memory
                        }
                        racing.exit();
                    }
                });
                th.start();
                threads.add(th);
            }
            go.countDown();
            Thread.onSpinWait();
            racing.close();
            for (Thread th : threads) {
                th.join(5000);
                assertFalse(th.isAlive(), "every operation is refused after the close");
            }
            assertEquals(1, count.get(), "released exactly once");
            assertEquals(0, violations.get(), "no operation ran after the release");
        }
    }
}
