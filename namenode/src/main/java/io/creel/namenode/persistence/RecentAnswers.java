package io.creel.namenode.persistence;

import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.retry.LoggedAnswer;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The logged answers a restarted namenode must still know, bounded as its retry cache is: at most
 * {@code maxEntries}, none answered more than {@code expiryMillis} before the newest. A checkpoint
 * writes them, because it replaces the log segments that held them. Not thread-safe.
 */
final class RecentAnswers {
    private final int maxEntries;
    private final long expiryMillis;
    private final ArrayDeque<LoggedAnswer> answers = new ArrayDeque<>();

    RecentAnswers(int maxEntries, long expiryMillis) {
        this.maxEntries = Math.max(1, maxEntries);
        this.expiryMillis = Math.max(1, expiryMillis);
    }

    /** Adds an answer (answers come in the order they were logged). */
    void add(LoggedAnswer a) {
        answers.addLast(a);
        while (answers.size() > maxEntries
                || answers.peekFirst().atMillis() <= a.atMillis() - expiryMillis) {
            answers.pollFirst();
        }
    }

    /** Forgets the answer to {@code request}, if it is here (its change was undone). */
    void withdraw(RequestIdentity request) {
        answers.removeIf(a -> a.identity().equals(request));
    }

    /** The answers, oldest first. */
    List<LoggedAnswer> list() {
        return List.copyOf(answers);
    }
}
