package io.creel.namenode.retry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The namenode's memory of answers: a retry is answered, never applied again, within its bounds. */
class RetryCacheTest {
    private final ManualClock clock = new ManualClock();
    private final RetryCache cache = new RetryCache(3, 60_000, clock);
    private final RequestIdentity client = RequestIdentity.newClient();
    private final AtomicInteger applied = new AtomicInteger();

    /** A request that counts its applications and answers with that count. */
    private CompletableFuture<Message> apply() {
        return CompletableFuture.completedFuture(new RegisterReply(applied.incrementAndGet(), 0));
    }

    private int answer(RequestIdentity id) {
        return ((RegisterReply) Expect.done(cache.answer(id, Opcode.CREATE, this::apply))).serverId();
    }

    @Test
    void aRetryGetsTheFirstAnswerAndIsNotAppliedAgain() {
        RequestIdentity id = client.withSequence(1);
        assertEquals(1, answer(id));
        assertEquals(1, answer(id));
        assertEquals(1, applied.get());
        assertEquals(1, cache.replays());
        assertEquals(2, answer(client.withSequence(2)), "another request of the same client is applied");
    }

    @Test
    void aRetryWhileTheFirstAttemptRunsWaitsForItsAnswer() {
        CompletableFuture<Message> running = new CompletableFuture<>();
        RequestIdentity id = client.withSequence(1);
        CompletableFuture<Message> first = cache.answer(id, Opcode.MOVE, () -> {
            applied.incrementAndGet();
            return running;
        });
        CompletableFuture<Message> retry = cache.answer(id, Opcode.MOVE, this::apply);
        assertFalse(retry.isDone());
        RegisterReply reply = new RegisterReply(77, 0);
        running.complete(reply);
        assertSame(reply, Expect.done(first));
        assertSame(reply, Expect.done(retry));
        assertEquals(1, applied.get());
    }

    @Test
    void anErrorIsAnAnswerToo() {
        RequestIdentity id = client.withSequence(1);
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> cache.answer(id, Opcode.CREATE, () -> {
            applied.incrementAndGet();
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "/a already exists");
        }), "/a already exists");
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> cache.answer(id, Opcode.CREATE, this::apply), "/a already exists");
        assertEquals(1, applied.get());
    }

    @Test
    void aFirstAttemptThatBreaksAnswersItsRetriesWithAnInternalErrorInsteadOfLeavingThemWaiting() {
        RequestIdentity id = client.withSequence(1);
        Expect.error(ErrorCode.INTERNAL, () -> cache.answer(id, Opcode.MOVE, () -> {
            throw new IllegalStateException("a bug");
        }), "MOVE failed", "a bug");
        Expect.error(ErrorCode.INTERNAL, () -> cache.answer(id, Opcode.MOVE, this::apply), "a bug");
        assertEquals(0, applied.get());
    }

    @Test
    void anIdentityReusedForAnotherOperationIsRefused() {
        RequestIdentity id = client.withSequence(1);
        answer(id);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> cache.answer(id, Opcode.REMOVE, this::apply),
                "was a CREATE", "REMOVE");
        assertEquals(1, applied.get());
    }

    @Test
    void requestsWithoutAnIdentityAreAlwaysApplied() {
        Expect.done(cache.answer(null, Opcode.CREATE, this::apply));
        Expect.done(cache.answer(null, Opcode.CREATE, this::apply));
        assertEquals(2, applied.get());
        assertEquals(0, cache.size());
    }

    @Test
    void theOldestAnswersGoFirstBeyondTheCountButARunningRequestStays() {
        CompletableFuture<Message> running = new CompletableFuture<>();
        cache.answer(client.withSequence(1), Opcode.CREATE, () -> running);
        for (long seq = 2; seq <= 5; seq++) {
            answer(client.withSequence(seq));
        }
        assertEquals(3, cache.size());
        running.complete(new RegisterReply(99, 0));
        assertEquals(99, answer(client.withSequence(1)), "the running request was kept");
        int before = applied.get();
        answer(client.withSequence(2));
        assertEquals(before + 1, applied.get(), "request 2 was forgotten, so its retry ran again");
    }

    @Test
    void answersAreForgottenAfterTheExpiry() {
        RequestIdentity id = client.withSequence(1);
        answer(id);
        clock.advance(59_999);
        assertEquals(1, answer(id));
        clock.advance(1);
        assertEquals(2, answer(id), "past the expiry a retry is a new request");
    }

    @Test
    void restoredAnswersAreSentAsLoggedAndExpireFromWhenTheyWereGiven() {
        byte[] reply = new RegisterReply(5, 6).encoded();
        RequestIdentity fresh = client.withSequence(1);
        RequestIdentity old = client.withSequence(2);
        cache.restore(List.of(new LoggedAnswer(old, Opcode.REMOVE, reply, clock.getAsLong() - 60_000),
                new LoggedAnswer(fresh, Opcode.REMOVE, reply, clock.getAsLong() - 1000)));
        assertEquals(1, cache.size(), "the answer older than the expiry is not restored");
        Message replayed = Expect.done(cache.answer(fresh, Opcode.REMOVE, this::apply));
        assertArrayEquals(reply, replayed.encoded());
        assertEquals(0, applied.get());
    }
}
