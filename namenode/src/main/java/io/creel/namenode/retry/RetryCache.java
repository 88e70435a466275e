package io.creel.namenode.retry;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RequestIdentity;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namenode's memory of the answers it gave to identified requests, so that a client retrying a
 * request after a lost connection or a namenode restart gets the first answer instead of a second
 * application: a create retried returns the node it created, not ALREADY_EXISTS; a remove retried
 * returns the node it removed, not NOT_FOUND. A retry that arrives while the first attempt still
 * runs waits for it and gets the same answer.
 *
 * <p>Both successes and errors are remembered (the first answer is the answer). Entries are kept
 * for {@code expiryMillis} after they were answered and at most {@code maxEntries} of them (the
 * oldest answered go first; one still running is never dropped), so a client must finish retrying
 * within the expiry ({@code creel.client.retry.deadline} is below {@code creel.namenode.retry.cache.expiry}
 * by default). Successful mutations of the namespace are also logged with their answers when the
 * namenode persists ({@link #restore}), so the memory outlives a restart.
 *
 * <p>Thread-safe; the first attempt runs outside the cache's lock.
 */
public final class RetryCache {
    /** Default of {@code creel.namenode.retry.cache.size}. */
    public static final int DEFAULT_MAX_ENTRIES = 100_000;

    /** One request's answer, or the first attempt still running. */
    private static final class Entry {
        final Opcode op;
        final CompletableFuture<Message> outcome;
        /** When it was answered (clock milliseconds); meaningless while running. */
        volatile long answeredAt;

        Entry(Opcode op, CompletableFuture<Message> outcome) {
            this.op = op;
            this.outcome = outcome;
        }
    }

    private final int maxEntries;
    private final long expiryMillis;
    private final LongSupplier clock;
    /** In order of arrival; expiry looks at the head. Guarded by this. */
    private final LinkedHashMap<RequestIdentity, Entry> entries = new LinkedHashMap<>();
    private final AtomicLong replays = new AtomicLong();
    private static final Logger LOG = LoggerFactory.getLogger(RetryCache.class);

    /**
     * @param maxEntries   the most answers kept (at least 1)
     * @param expiryMillis how long an answer is kept after it was given
     * @param clock        wall-clock milliseconds (answers restored from the log carry such times)
     */
    public RetryCache(int maxEntries, long expiryMillis, LongSupplier clock) {
        if (maxEntries < 1 || expiryMillis < 1) {
            throw new IllegalArgumentException("a retry cache needs room for an entry and a positive expiry: "
                    + maxEntries + " entries, " + expiryMillis + " ms");
        }
        this.maxEntries = maxEntries;
        this.expiryMillis = expiryMillis;
        this.clock = clock;
    }

    /**
     * The answer to request {@code id} ({@code null}: the client gave none, so {@code first} simply
     * runs): the first attempt's, if this request was seen before, else {@code first}'s, which then
     * answers every retry. The future fails with a {@link CreelException}.
     */
    @SuppressWarnings("unchecked")
    public CompletableFuture<Message> answer(RequestIdentity id, Opcode op,
                                             Supplier<? extends CompletableFuture<? extends Message>> first) {
        if (id == null) {
            return (CompletableFuture<Message>) first.get(); // as without a cache: a failure is the caller's
        }
        Entry entry;
        boolean seen;
        synchronized (this) {
            trim();
            entry = entries.get(id);
            seen = entry != null;
            if (!seen) {
                entry = new Entry(op, new CompletableFuture<>());
                entries.put(id, entry);
            }
        }
        if (seen) {
            if (entry.op != op) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.INVALID_ARGUMENT, "request " + id
                        + " was a " + entry.op + " and is now sent as a " + op + "; a client must not reuse a request id"));
            }
            replays.incrementAndGet();
            return entry.outcome;
        }
        Entry e = entry;
        run(op, first).whenComplete((reply, err) -> {
            e.answeredAt = clock.getAsLong();
            if (err != null) {
                e.outcome.completeExceptionally(CreelException.unwrap(err));
            } else {
                e.outcome.complete(reply);
            }
        });
        return e.outcome;
    }

    /**
     * Runs a first attempt; whatever it throws becomes its answer, so its entry is always settled
     * and a retry waiting for it is never left waiting.
     */
    @SuppressWarnings("unchecked")
    private static CompletableFuture<Message> run(Opcode op,
                                                  Supplier<? extends CompletableFuture<? extends Message>> first) {
        try {
            return (CompletableFuture<Message>) first.get();
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            LOG.error("{} request failed", op, e);
            return CompletableFuture.failedFuture(new CreelException(ErrorCode.INTERNAL, op + " failed: " + e, e));
        }
    }

    /**
     * Remembers answers a previous run of this namenode logged (oldest first), as if given now by
     * this one; those past the expiry are skipped.
     */
    public synchronized void restore(List<LoggedAnswer> answers) {
        for (LoggedAnswer a : answers) {
            Entry e = new Entry(a.opcode(), CompletableFuture.completedFuture(new EncodedReply(a.reply())));
            e.answeredAt = a.atMillis();
            entries.remove(a.identity()); // a later log record of the same request wins (there is none today)
            entries.put(a.identity(), e);
        }
        trim();
    }

    /** Drops answers past the expiry, then the oldest answered ones beyond the count. */
    private void trim() {
        long now = clock.getAsLong();
        int excess = entries.size() - maxEntries;
        // A retry cache holds few running entries (requests in flight); scanning past them is cheap.
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (!e.outcome.isDone()) {
                continue;
            }
            if (excess > 0) {
                it.remove();
                excess--;
            } else if (now - e.answeredAt >= expiryMillis) {
                it.remove();
            } else {
                break; // answered in arrival order, nearly: the rest are younger
            }
        }
    }

    /** Answers kept, running requests included. */
    public synchronized int size() {
        trim();
        return entries.size();
    }

    /** Requests answered from the cache so far (retries), for tests and metrics. */
    public long replays() {
        return replays.get();
    }
}
