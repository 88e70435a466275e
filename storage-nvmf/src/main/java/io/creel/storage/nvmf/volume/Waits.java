package io.creel.storage.nvmf.volume;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Bounded waits for callers that must block (a storage server's synchronous medium). */
public final class Waits {
    private Waits() {
    }

    /**
     * The value of {@code f}, waiting at most {@code limit}; a failure becomes a CreelException with
     * {@code what} before its message, and so does running out of time (TIMEOUT).
     */
    public static <T> T await(CompletableFuture<T> f, Duration limit, String what) {
        try {
            return f.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw NvmfErrors.toCreel(e, what);
        } catch (TimeoutException e) {
            throw new CreelException(ErrorCode.TIMEOUT, what + ": no answer within " + limit.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.INTERNAL, what + ": interrupted while waiting");
        }
    }
}
