package io.creel.client;

import io.creel.common.error.CreelException;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Test helpers: reproducible bytes and waiting for futures. */
final class TestData {
    private TestData() {
    }

    static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    /** The exception a future failed with, which the client promises is the CreelException itself. */
    static CreelException failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CreelException ce) {
                return ce;
            }
            throw new AssertionError("failed with a non-Creel exception", e.getCause());
        }
        throw new AssertionError("expected the future to fail");
    }
}
