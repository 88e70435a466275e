package io.creel.client;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Helpers that keep the client's promise that failed futures carry a {@link CreelException} itself
 * (not a {@link java.util.concurrent.CompletionException} around it), and that every blocking wait
 * has a timeout.
 */
public final class Futures {
    private Futures() {
    }

    /** A future that completes like {@code f} but fails with the unwrapped {@link CreelException}. */
    public static <T> CompletableFuture<T> clean(CompletableFuture<T> f) {
        CompletableFuture<T> out = new CompletableFuture<>();
        f.whenComplete((v, t) -> {
            if (t == null) {
                out.complete(v);
            } else {
                out.completeExceptionally(CreelException.unwrap(t));
            }
        });
        return out;
    }

    /** A future already failed with {@code t} unwrapped to its {@link CreelException}. */
    public static <T> CompletableFuture<T> failed(Throwable t) {
        return CompletableFuture.failedFuture(CreelException.unwrap(t));
    }

    /** Runs {@code body}, turning an exception it throws into a failed future. */
    public static <T> CompletableFuture<T> guard(java.util.function.Supplier<CompletableFuture<T>> body) {
        try {
            return body.get();
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    /** Waits for {@code f} at most {@code timeout}; failures and the timeout surface as {@link CreelException}. */
    public static <T> T await(CompletableFuture<T> f, Duration timeout, String what) {
        try {
            return f.get(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e.getCause());
        } catch (TimeoutException e) {
            throw new CreelException(ErrorCode.TIMEOUT, what + " did not complete within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.INTERNAL, what + " was interrupted");
        }
    }

    /** Like {@link #await} for java.io callers: a failure becomes a {@link CreelIOException}. */
    public static <T> T awaitIo(CompletableFuture<T> f, Duration timeout, String what) throws IOException {
        try {
            return await(f, timeout, what);
        } catch (CreelException e) {
            throw new CreelIOException(e);
        }
    }
}
