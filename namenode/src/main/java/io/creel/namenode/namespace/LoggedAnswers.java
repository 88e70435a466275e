package io.creel.namenode.namespace;

import io.creel.common.protocol.Message;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RequestIdentity;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The answers of identified requests (see docs/architecture.md, "Retries: exactly once"), logged
 * right behind the changes they answer, in the same lock section, so a restarted namenode answers a
 * retry instead of applying the change again. Called under the namespace lock: an operation
 * {@link #begin}s, may say what it will answer once its directory record is written
 * ({@link #expect}), and ends with {@link #settle}.
 */
final class LoggedAnswers {
    private final Supplier<NamespaceLog> log;
    private final LongSupplier clock;
    /**
     * The answer the operation running under the lock gives if it succeeds, set by it once its
     * change is logged when its outcome waits for a directory record write; read by {@link #settle}
     * in the same lock section. Null otherwise.
     */
    private Object expected;

    LoggedAnswers(Supplier<NamespaceLog> log, LongSupplier clock) {
        this.log = log;
        this.clock = clock;
    }

    /** An operation starts under the lock: nothing is expected yet. */
    void begin() {
        expected = null;
    }

    /** The answer the running operation gives if its directory-record write succeeds. */
    void expect(Object answer) {
        expected = answer;
    }

    /**
     * {@code outcome} once the log holds what it changed (per the sync policy). Called under this
     * object's lock right after the change's records. For an identified {@code request} the answer
     * ({@code asReply} of it: what the client is sent) is logged right behind those records, in the
     * same lock section, so the change and its answer reach the log together and a restarted
     * namenode answers a retry of it instead of applying it again: the outcome's value if it is
     * known, else the answer the operation {@link #expect}ed (it waits for a directory record
     * write); should that write fail and the change be undone, the undo withdraws the answer in its
     * own lock section ({@link #withdraw}). A failure is not logged: it changed nothing, or was
     * undone, and a retry after a restart runs again.
     */
    @SuppressWarnings("unchecked")
    <T> CompletableFuture<T> settle(CompletableFuture<T> outcome, long logged, RequestIdentity request,
                                            Opcode op, Function<T, Message> asReply) {
        Object promised = expected;
        expected = null;
        NamespaceLog log = this.log.get();
        if (request == null || !log.keepsAnswers()
                || outcome.isCompletedExceptionally() || (!outcome.isDone() && promised == null)) {
            return log.durable(outcome, logged);
        }
        T answer = outcome.isDone() ? outcome.join() : (T) promised;
        log.answered(request, op, asReply.apply(answer).encoded(), clock.getAsLong());
        long answered = log.position();
        return log.durable(outcome, answered);
    }

    /**
     * An identified request's change was undone after its answer was logged (its directory record
     * could not be written): the answer is withdrawn right behind the undo's records, so a restart
     * never answers for a change it does not have. Under this object's lock.
     */
    void withdraw(RequestIdentity request) {
        NamespaceLog log = this.log.get();
        if (request != null && log.keepsAnswers()) {
            log.withdrawn(request);
        }
    }
}
