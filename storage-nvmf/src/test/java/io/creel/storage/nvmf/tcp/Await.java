package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.storage.nvmf.NvmfException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Bounded waits for tests: nothing here waits longer than its limit, and none asserts on time taken. */
final class Await {
    private Await() {
    }

    static <T> T done(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    /** The NvmfException {@code f} fails with (within 30 s). */
    static NvmfException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        NvmfException n = NvmfException.find(e);
        assertNotNull(n, () -> "expected an NvmfException, got " + e.getCause());
        return n;
    }

    /** Waits up to 15 s for {@code condition}. */
    static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("still not true after 15 s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
