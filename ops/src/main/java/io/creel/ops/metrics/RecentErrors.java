package io.creel.ops.metrics;

import io.creel.common.error.CreelException;
import io.creel.common.protocol.RequestType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The last few errors RPC servers answered with, for the status page. A small ring under a lock:
 * only the error path takes it.
 */
public final class RecentErrors {
    /** How many the status page shows. */
    public static final int DEFAULT_SIZE = 20;

    /** One error answered. */
    public record Entry(Instant at, String service, RequestType op, String code, String message) {
    }

    private final Entry[] ring;
    private int next;
    private long total;

    public RecentErrors(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("a ring of recent errors needs room for one: " + size);
        }
        ring = new Entry[size];
    }

    void add(String service, RequestType op, CreelException error) {
        Entry e = new Entry(Instant.now(), service, op, error.code().name(), error.getMessage());
        synchronized (this) {
            ring[next] = e;
            next = (next + 1) % ring.length;
            total++;
        }
    }

    /** The errors kept, newest first. */
    public synchronized List<Entry> newestFirst() {
        List<Entry> out = new ArrayList<>(ring.length);
        for (int i = 1; i <= ring.length; i++) {
            Entry e = ring[(next - i + ring.length) % ring.length];
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    /** Errors seen in all, including those the ring no longer holds. */
    public synchronized long total() {
        return total;
    }
}
