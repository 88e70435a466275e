package io.creel.common.inflight;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The requests a connection has sent and not yet seen answered, by request id, each with its
 * deadline: a reply takes its request out ({@link #remove}), a sweep takes out those past their
 * deadline ({@link #sweep}), and a lost connection takes out all of them ({@link #failAll}). Whoever
 * takes an entry out owns it, so a reply, a timeout and a close racing for one request settle it
 * exactly once. Safe for any number of threads.
 *
 * @param <K> request id
 * @param <V> what waits for the reply; it knows its deadline
 */
public final class InFlightTable<K, V extends InFlightTable.Deadlined> {
    /** An entry's deadline, as {@link System#nanoTime()}. */
    public interface Deadlined {
        /** When the request times out ({@link System#nanoTime()} scale). */
        long deadlineNanos();
    }

    private final ConcurrentHashMap<K, V> entries = new ConcurrentHashMap<>();

    /** Adds {@code value} under {@code key} (a key is used once). */
    public void put(K key, V value) {
        entries.put(key, value);
    }

    /** The entry under {@code key}, left in place; null if none. */
    public V get(K key) {
        return entries.get(key);
    }

    /** Whether an entry is under {@code key}. */
    public boolean contains(K key) {
        return entries.containsKey(key);
    }

    /** Takes out the entry under {@code key}; null if none (answered, expired or failed already). */
    public V remove(K key) {
        return entries.remove(key);
    }

    /** Takes out the entry under {@code key} if it is {@code value}; whether it did. */
    public boolean remove(K key, V value) {
        return entries.remove(key, value);
    }

    /** Requests in flight. */
    public int size() {
        return entries.size();
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /**
     * Takes out every entry whose deadline is at or before {@code nowNanos} and hands each to
     * {@code expired}; returns how many.
     */
    public int sweep(long nowNanos, BiConsumer<K, V> expired) {
        int n = 0;
        for (var e : entries.entrySet()) {
            K key = e.getKey();
            V value = e.getValue();
            if (nowNanos - value.deadlineNanos() >= 0 && entries.remove(key, value)) {
                expired.accept(key, value);
                n++;
            }
        }
        return n;
    }

    /**
     * Takes out every entry and hands each to {@code fail}; returns how many. An entry put while it
     * runs may be left for the caller's own re-check (see the callers: they re-read their closed
     * state after a put).
     */
    public int failAll(Consumer<V> fail) {
        int n = 0;
        for (K key : entries.keySet()) {
            V value = entries.remove(key);
            if (value != null) {
                fail.accept(value);
                n++;
            }
        }
        return n;
    }
}
