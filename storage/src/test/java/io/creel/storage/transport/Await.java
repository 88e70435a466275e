package io.creel.storage.transport;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.creel.common.error.CreelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Bounded waits for the futures under test. */
final class Await {
    private static final long SECONDS = 10;

    private Await() {
    }

    /** The future's value; its CreelException if it failed. */
    static <T> T result(CompletableFuture<T> f) {
        try {
            return f.get(SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e);
        } catch (TimeoutException e) {
            throw new AssertionError("not done within " + SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The CreelException the future fails with. */
    static CreelException failure(CompletableFuture<?> f) {
        return assertThrows(CreelException.class, () -> result(f));
    }
}
