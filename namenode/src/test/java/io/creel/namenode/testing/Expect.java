package io.creel.namenode.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Assertions on Creel errors, whether thrown or carried by a future. */
public final class Expect {
    private Expect() {
    }

    /** A step that either throws or returns a future that fails. */
    @FunctionalInterface
    public interface Step {
        Object run() throws Exception;
    }

    /** Runs {@code step} and checks it fails with {@code code} and a message containing every fragment. */
    public static CreelException error(ErrorCode code, Step step, String... fragments) {
        CreelException caught = null;
        try {
            Object r = step.run();
            if (r instanceof CompletableFuture<?> f) {
                f.get(10, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            caught = CreelException.unwrap(e);
        }
        if (caught == null) {
            fail("expected " + code + " but the step succeeded");
        }
        assertEquals(code, caught.code(), "error code of: " + caught.getMessage());
        for (String f : fragments) {
            assertTrue(caught.getMessage().contains(f), "message '" + caught.getMessage() + "' should mention '" + f + "'");
        }
        return caught;
    }

    /** Waits for a future that must succeed. */
    public static <T> T done(CompletableFuture<T> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("expected success, got " + CreelException.unwrap(e), e);
        }
    }
}
